package dev.archlab.inbox.broker;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.PayloadMismatchException;
import java.time.Duration;
import java.util.Objects;

/**
 * What a broker is to do with one delivery, decided once here for every adapter; an adapter only
 * translates the {@link Action} into its broker's terms. The rules, as {@code inbox-kafka}'s
 * partition run, {@code inbox-rabbitmq}'s channel worker and the Spring Boot starter's Kafka
 * listener applied them each on its own before:
 *
 * <table>
 *   <caption>Outcome or failure, decision, and what each adapter does with it</caption>
 *   <tr><th>What happened</th><th>Decision</th><th>Kafka loop</th><th>RabbitMQ consumer</th>
 *       <th>Spring Kafka listener</th></tr>
 *   <tr><td>APPLIED, DUPLICATE</td><td>{@link Action#ACKNOWLEDGE}</td>
 *       <td>the offset may pass the record</td><td>{@code basicAck}</td><td>returns normally</td></tr>
 *   <tr><td>DEAD</td><td>{@link Action#DEAD_LETTER}, reason: the record's last error, else the
 *       attempt's error, else "dead in the inbox, no error kept"; the outcome's attempts</td>
 *       <td rowspan="3">to the dead-letter topic, then the offset passes it; if the broker does
 *       not confirm: as {@link Action#REDELIVER_AFTER_ERROR}</td>
 *       <td rowspan="3">to the dead-letter exchange, acked after the confirm; if not confirmed:
 *       requeued after the error backoff</td>
 *       <td rowspan="3">{@code DeadLetterRecordException}: the container's error handler
 *       publishes it</td></tr>
 *   <tr><td>payload mismatch (the consume call threw {@link PayloadMismatchException})</td>
 *       <td>{@link Action#DEAD_LETTER}, reason "payload mismatch: " and the message; attempts 0</td></tr>
 *   <tr><td>no message id, or an invalid one ({@link MessageIdSource#identify})</td>
 *       <td>{@link Action#DEAD_LETTER}, reason "no message id" or "invalid message id: …";
 *       attempts 0 (RabbitMQ's {@code MissingIdAction.DISCARD} acks it instead)</td></tr>
 *   <tr><td>IN_FLIGHT (including a lost lease)</td><td>{@link Action#REDELIVER_WHEN_RELEASED}
 *       after the outcome's {@code retryAfter}</td>
 *       <td rowspan="2">stop at the record: seek back, pause the partition for the delay (at most
 *       {@code maxPause})</td>
 *       <td rowspan="2">a retry copy with the delay as its TTL (within the retry delay bounds),
 *       then the ack</td>
 *       <td rowspan="2">{@code RedeliverRecordException} with the delay</td></tr>
 *   <tr><td>FAILED</td><td>{@link Action#REDELIVER_FOR_RETRY} after the outcome's {@code
 *       retryAfter}</td></tr>
 *   <tr><td>the consume call threw anything else (a store error, a lost lease)</td>
 *       <td>{@link Action#REDELIVER_AFTER_ERROR}</td>
 *       <td rowspan="2">stop at the record: seek back, pause for {@code errorBackoff}</td>
 *       <td rowspan="2">a retry copy after {@code errorBackoff}</td>
 *       <td rowspan="2">the error is thrown on to the container's error handler, as it was</td></tr>
 *   <tr><td>an in-order call answered fewer messages than it was given, none unfinished</td>
 *       <td>{@link Action#REDELIVER_AFTER_ERROR} for the first unanswered</td></tr>
 * </table>
 *
 * <p>A failed batch call (more than one message) is not decided at all: nothing says which message
 * failed, so the adapters consume its messages again one by one (those already committed come back
 * DUPLICATE) and decide on each. Where the adapters differ they differ in their broker's terms
 * only: the decision is the same.
 *
 * @param action what to do
 * @param delay for {@link Action#REDELIVER_WHEN_RELEASED} and {@link Action#REDELIVER_FOR_RETRY}:
 *     the outcome's {@code retryAfter}; otherwise zero (the adapter's error backoff applies)
 * @param reason for {@link Action#DEAD_LETTER}: why, for the dead-letter headers; for {@link
 *     Action#REDELIVER_AFTER_ERROR}: what went wrong; otherwise null
 * @param attempts for {@link Action#DEAD_LETTER}: the record's attempts (0 when no record was
 *     reached); otherwise the outcome's attempts, or 0
 */
public record BrokerDecision(Action action, Duration delay, String reason, int attempts) {

  /** The reason of a DEAD outcome that carries neither a stored nor a thrown error. */
  public static final String NO_ERROR_KEPT = "dead in the inbox, no error kept";

  /** What the broker is to do with the delivery. */
  public enum Action {
    /** Finished: the broker may forget the delivery (offset past it, ack). */
    ACKNOWLEDGE,
    /**
     * Finished, but parked: publish a copy to the dead-letter destination with {@link #reason()},
     * and forget the delivery only once the broker confirmed that copy.
     */
    DEAD_LETTER,
    /**
     * Not finished: another consumer holds the message, or it waits for its retry time. Deliver it
     * again after {@link #delay()}; do not pass it.
     */
    REDELIVER_WHEN_RELEASED,
    /** Not finished: the handler failed and a retry is due after {@link #delay()}. */
    REDELIVER_FOR_RETRY,
    /**
     * Not finished, and nothing says when it will be: the call failed or did not answer. Deliver it
     * again after the adapter's own error backoff.
     */
    REDELIVER_AFTER_ERROR
  }

  /**
   * Checks the components.
   *
   * @param action what to do
   * @param delay the redelivery delay; null is taken as zero
   * @param reason why; may be null
   * @param attempts the record's attempts, not negative
   * @throws NullPointerException if {@code action} is null
   * @throws IllegalArgumentException if {@code delay} or {@code attempts} is negative
   */
  public BrokerDecision {
    Objects.requireNonNull(action, "action");
    delay = delay == null ? Duration.ZERO : delay;
    if (delay.isNegative() || attempts < 0) {
      throw new IllegalArgumentException(
          "delay and attempts must not be negative, were " + delay + " and " + attempts);
    }
  }

  /**
   * The decision for an outcome.
   *
   * @param outcome what consuming the delivery came to
   * @return the decision
   */
  public static BrokerDecision of(Outcome outcome) {
    Objects.requireNonNull(outcome, "outcome");
    return switch (outcome.status()) {
      case APPLIED, DUPLICATE ->
          new BrokerDecision(Action.ACKNOWLEDGE, Duration.ZERO, null, outcome.attempts());
      case DEAD ->
          new BrokerDecision(
              Action.DEAD_LETTER, Duration.ZERO, deadReason(outcome), outcome.attempts());
      case IN_FLIGHT ->
          new BrokerDecision(
              Action.REDELIVER_WHEN_RELEASED, outcome.retryAfter(), null, outcome.attempts());
      case FAILED ->
          new BrokerDecision(
              Action.REDELIVER_FOR_RETRY, outcome.retryAfter(), null, outcome.attempts());
    };
  }

  /**
   * The decision for a consume call of one message that threw instead of answering.
   *
   * @param error what the call threw
   * @return {@link Action#DEAD_LETTER} for a {@link PayloadMismatchException} (bad input that no
   *     retry can fix), {@link Action#REDELIVER_AFTER_ERROR} for anything else
   */
  public static BrokerDecision ofFailedCall(RuntimeException error) {
    Objects.requireNonNull(error, "error");
    if (error instanceof PayloadMismatchException) {
      return deadLetter("payload mismatch: " + error.getMessage());
    }
    return new BrokerDecision(Action.REDELIVER_AFTER_ERROR, Duration.ZERO, error.toString(), 0);
  }

  /**
   * The decision for a message an in-order call left unanswered though none before it was
   * unfinished: it was not consumed, so it is delivered again.
   *
   * @return {@link Action#REDELIVER_AFTER_ERROR}
   */
  public static BrokerDecision unanswered() {
    return new BrokerDecision(
        Action.REDELIVER_AFTER_ERROR, Duration.ZERO, "not answered by the consume call", 0);
  }

  /**
   * The decision for a delivery that never reached the inbox (no message id, or an invalid one).
   *
   * @param reason why, for the dead-letter headers
   * @return {@link Action#DEAD_LETTER} with 0 attempts
   */
  public static BrokerDecision deadLetter(String reason) {
    return new BrokerDecision(
        Action.DEAD_LETTER, Duration.ZERO, Objects.requireNonNull(reason, "reason"), 0);
  }

  /**
   * Whether the broker may forget the delivery ({@link Action#ACKNOWLEDGE}, or {@link
   * Action#DEAD_LETTER} once its copy is confirmed).
   *
   * @return true unless the delivery is to be delivered again
   */
  public boolean finishes() {
    return action == Action.ACKNOWLEDGE || action == Action.DEAD_LETTER;
  }

  /**
   * How long to wait before the delivery comes again.
   *
   * @param errorBackoff the adapter's wait after an error
   * @return {@link #delay()} for the two outcome-driven redeliveries, {@code errorBackoff} for
   *     {@link Action#REDELIVER_AFTER_ERROR}, zero for the actions that finish
   */
  public Duration redeliverAfter(Duration errorBackoff) {
    return switch (action) {
      case REDELIVER_AFTER_ERROR -> errorBackoff;
      case REDELIVER_WHEN_RELEASED, REDELIVER_FOR_RETRY -> delay;
      case ACKNOWLEDGE, DEAD_LETTER -> Duration.ZERO;
    };
  }

  /**
   * The record's own error, whichever delivery parked it: a redelivery answered DEAD has no
   * throwable.
   */
  private static String deadReason(Outcome outcome) {
    if (outcome.lastError() != null) {
      return outcome.lastError();
    }
    return outcome.error() != null ? outcome.error().toString() : NO_ERROR_KEPT;
  }
}
