package dev.archlab.inbox;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What consuming one delivery came to. {@link #shouldAcknowledge()} tells the broker adapter
 * whether to acknowledge the delivery or have it redelivered.
 *
 * @param status the kind of outcome
 * @param messageId the message id
 * @param attempts the record's attempt number
 * @param retryAfter IN_FLIGHT: time until the current lease or retry time passes; FAILED: the
 *     backoff delay; otherwise zero
 * @param retryAt FAILED: earliest retry time; IN_FLIGHT: when the current lease or retry time ends;
 *     both in the store's clock; otherwise null
 * @param error FAILED or DEAD by failure: what the handler threw; otherwise null
 * @param storedResult DUPLICATE or APPLIED: the result kept with the record, if any
 * @param lastError FAILED or DEAD: the last error as the record keeps it ({@link
 *     InboxRecord#lastError()}, at most {@link InboxRecord#MAX_ERROR_LENGTH} characters). A DEAD
 *     outcome of a message parked earlier has no {@code error} but still carries the stored {@code
 *     lastError}, so whoever reports it (a dead-letter topic, a log) reports the real failure. Null
 *     for the other statuses, or when the record keeps none
 */
public record Outcome(
    Status status,
    String messageId,
    int attempts,
    Duration retryAfter,
    Instant retryAt,
    Throwable error,
    byte[] storedResult,
    String lastError) {

  /** The kinds of outcome. */
  public enum Status {
    /** The handler ran now and the record is DONE. Acknowledge. */
    APPLIED,
    /** The message was already DONE; the handler did not run. Acknowledge. */
    DUPLICATE,
    /**
     * Another instance holds the message, or it waits for its retry time. Do not acknowledge;
     * redeliver after {@link #retryAfter()}.
     */
    IN_FLIGHT,
    /** The handler threw; a retry is due at {@link #retryAt()}. Do not acknowledge. */
    FAILED,
    /** Parked after its last attempt; the handler will not run again. Acknowledge. */
    DEAD
  }

  /**
   * Checks the required components, defaults a missing {@code retryAfter} to zero and copies {@code
   * storedResult}, so the outcome stays immutable.
   *
   * @param status the kind of outcome
   * @param messageId the message id
   * @param attempts the record's attempt number
   * @param retryAfter the retry hint; null is taken as zero
   * @param retryAt the earliest retry or lease end in the store's clock; null when not applicable
   * @param error what the handler threw; null when not applicable
   * @param storedResult the result kept with the record; null when none
   * @param lastError the last error as the record keeps it; null when none. Cut to {@link
   *     InboxRecord#MAX_ERROR_LENGTH} characters
   * @throws NullPointerException if {@code status} or {@code messageId} is null
   */
  public Outcome {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(messageId, "messageId");
    retryAfter = retryAfter == null ? Duration.ZERO : retryAfter;
    storedResult = storedResult == null ? null : storedResult.clone();
    lastError = InboxRecord.boundError(lastError);
  }

  /**
   * An outcome whose {@code lastError} is described from {@code error} for FAILED and DEAD (as a
   * store keeps it: the class name and the message), and null otherwise.
   *
   * @param status the kind of outcome
   * @param messageId the message id
   * @param attempts the record's attempt number
   * @param retryAfter the retry hint; null is taken as zero
   * @param retryAt the earliest retry or lease end in the store's clock; null when not applicable
   * @param error what the handler threw; null when not applicable
   * @param storedResult the result kept with the record; null when none
   * @throws NullPointerException if {@code status} or {@code messageId} is null
   */
  public Outcome(
      Status status,
      String messageId,
      int attempts,
      Duration retryAfter,
      Instant retryAt,
      Throwable error,
      byte[] storedResult) {
    this(
        status,
        messageId,
        attempts,
        retryAfter,
        retryAt,
        error,
        storedResult,
        status == Status.FAILED || status == Status.DEAD ? describe(error) : null);
  }

  /** The text a consumer stores for {@code error} (as {@code ConsumeSteps.describe}); null-safe. */
  private static String describe(Throwable error) {
    if (error == null) {
      return null;
    }
    String text =
        error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
    return InboxRecord.boundError(text);
  }

  /**
   * True for APPLIED, DUPLICATE and DEAD: the broker may forget this delivery.
   *
   * @return whether to acknowledge the delivery; false means have it redelivered
   */
  public boolean shouldAcknowledge() {
    return status == Status.APPLIED || status == Status.DUPLICATE || status == Status.DEAD;
  }

  /**
   * The result kept by the first successful run, as a copy.
   *
   * @return a fresh copy of the kept result, or empty when none
   */
  public Optional<byte[]> result() {
    return Optional.ofNullable(storedResult == null ? null : storedResult.clone());
  }

  /**
   * The result kept with the record, as a copy.
   *
   * @return a fresh copy of the kept result, or null when none
   */
  @Override
  public byte[] storedResult() {
    return storedResult == null ? null : storedResult.clone();
  }

  /**
   * The handler ran now and the record is DONE.
   *
   * @param messageId the message id
   * @param attempts the attempt that applied it
   * @param storedResult the result kept with the record; null when none
   * @return an APPLIED outcome
   */
  public static Outcome applied(String messageId, int attempts, byte[] storedResult) {
    return new Outcome(
        Status.APPLIED, messageId, attempts, Duration.ZERO, null, null, storedResult);
  }

  /**
   * The message was already DONE; nothing ran.
   *
   * @param messageId the message id
   * @param attempts the record's attempts
   * @param storedResult the result kept with the record; null when none
   * @return a DUPLICATE outcome
   */
  public static Outcome duplicate(String messageId, int attempts, byte[] storedResult) {
    return new Outcome(
        Status.DUPLICATE, messageId, attempts, Duration.ZERO, null, null, storedResult);
  }

  /**
   * Someone else holds the message, or it waits for its retry time: redeliver later.
   *
   * @param messageId the message id
   * @param attempts the record's attempts; 0 when no record could be read
   * @param retryAfter how long until the lease or retry time passes; null is taken as zero
   * @param retryAt when it passes, in the store's clock; null when unknown
   * @return an IN_FLIGHT outcome
   */
  public static Outcome inFlight(
      String messageId, int attempts, Duration retryAfter, Instant retryAt) {
    return new Outcome(Status.IN_FLIGHT, messageId, attempts, retryAfter, retryAt, null, null);
  }

  /**
   * This instance's claim was taken over before its result could be recorded: the current owner
   * settles the message, so the delivery is to be redelivered, not acknowledged.
   *
   * @param messageId the message id
   * @param attempts the lost claim's fencing token
   * @param lost why the claim was lost
   * @return an IN_FLIGHT outcome carrying {@code lost} as its error
   */
  public static Outcome leaseLost(String messageId, int attempts, Throwable lost) {
    return new Outcome(Status.IN_FLIGHT, messageId, attempts, Duration.ZERO, null, lost, null);
  }

  /**
   * The handler threw and a retry is due later.
   *
   * @param messageId the message id
   * @param attempts the attempt that failed
   * @param retryAfter the backoff delay
   * @param retryAt the earliest retry, in the store's clock
   * @param error what the handler threw
   * @return a FAILED outcome
   */
  public static Outcome failed(
      String messageId, int attempts, Duration retryAfter, Instant retryAt, Throwable error) {
    return new Outcome(Status.FAILED, messageId, attempts, retryAfter, retryAt, error, null);
  }

  /**
   * The message is parked as DEAD; the handler will not run again.
   *
   * @param messageId the message id
   * @param attempts the record's attempts
   * @param error what the last attempt threw; null when it was parked earlier or by a crash
   * @return a DEAD outcome
   */
  public static Outcome dead(String messageId, int attempts, Throwable error) {
    return new Outcome(Status.DEAD, messageId, attempts, Duration.ZERO, null, error, null);
  }

  /**
   * The message was parked as DEAD now, by the attempt that threw {@code error}; the outcome
   * carries the DEAD record's attempts and stored last error.
   *
   * @param dead the DEAD record, as the store returned it
   * @param error what the last attempt threw; null when unknown
   * @return a DEAD outcome
   */
  public static Outcome dead(InboxRecord dead, Throwable error) {
    return new Outcome(
        Status.DEAD,
        dead.messageId(),
        dead.attempts(),
        Duration.ZERO,
        null,
        error,
        null,
        dead.lastError());
  }

  /**
   * An outcome that reports {@code record} as it is, with no retry hint and no error. A FAILED or
   * DEAD outcome keeps the record's stored {@link InboxRecord#lastError()}: a message parked
   * earlier (by this process or one that died before reporting it) is reported with the failure
   * that parked it.
   *
   * @param status the kind of outcome
   * @param record the record whose id, attempts, kept result and last error the outcome reports
   * @return the outcome
   */
  public static Outcome of(Status status, InboxRecord record) {
    return new Outcome(
        status,
        record.messageId(),
        record.attempts(),
        Duration.ZERO,
        null,
        null,
        record.result(),
        status == Status.FAILED || status == Status.DEAD ? record.lastError() : null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Outcome other
        && status == other.status
        && attempts == other.attempts
        && messageId.equals(other.messageId)
        && retryAfter.equals(other.retryAfter)
        && Objects.equals(retryAt, other.retryAt)
        && Objects.equals(error, other.error)
        && java.util.Arrays.equals(storedResult, other.storedResult)
        && Objects.equals(lastError, other.lastError);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, messageId, attempts, retryAfter, retryAt);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(status.name()).append('[').append(messageId);
    s.append(", attempts=").append(attempts);
    if (status == Status.IN_FLIGHT || status == Status.FAILED) {
      s.append(", retryAfter=").append(retryAfter);
    }
    if (retryAt != null) {
      s.append(", retryAt=").append(retryAt);
    }
    if (error != null) {
      s.append(", error=").append(error);
    } else if (lastError != null) {
      s.append(", lastError=").append(lastError);
    }
    return s.append(']').toString();
  }
}
