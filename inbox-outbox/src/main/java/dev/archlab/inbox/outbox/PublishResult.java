package dev.archlab.inbox.outbox;

import java.util.Objects;

/**
 * What became of one row a publisher was given: acknowledged by the broker ({@link Kind#SENT}),
 * failed for now ({@link Kind#RETRY}: the relay tries it again after a backoff), or impossible to
 * publish ({@link Kind#DEAD}: parked with the reason until an operator retries it). Immutable.
 *
 * @param kind the outcome
 * @param error why it failed; null for {@link Kind#SENT}
 */
public record PublishResult(Kind kind, String error) {

  /** The outcomes of a publish. */
  public enum Kind {
    /** The broker acknowledged the message: it is marked SENT. */
    SENT,
    /** It failed in a way that may pass (broker down, timeout): tried again after a backoff. */
    RETRY,
    /** It can never be published as it is (too large, unknown destination): parked DEAD. */
    DEAD
  }

  private static final PublishResult SENT = new PublishResult(Kind.SENT, null);

  /**
   * Checks that failures carry a reason.
   *
   * @throws IllegalArgumentException if a RETRY or DEAD result has no error
   */
  public PublishResult {
    Objects.requireNonNull(kind, "kind");
    if (kind != Kind.SENT && (error == null || error.isBlank())) {
      throw new IllegalArgumentException(kind + " needs the reason it failed");
    }
  }

  /**
   * The broker acknowledged the message.
   *
   * @return a SENT result
   */
  public static PublishResult sent() {
    return SENT;
  }

  /**
   * The publish failed for now.
   *
   * @param error why
   * @return a RETRY result
   */
  public static PublishResult retry(String error) {
    return new PublishResult(Kind.RETRY, error);
  }

  /**
   * The message can never be published as it is.
   *
   * @param error why
   * @return a DEAD result
   */
  public static PublishResult dead(String error) {
    return new PublishResult(Kind.DEAD, error);
  }
}
