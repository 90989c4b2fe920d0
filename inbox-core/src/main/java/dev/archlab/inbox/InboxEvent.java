package dev.archlab.inbox;

import java.time.Instant;
import java.util.Objects;

/**
 * Something that happened while consuming or maintaining the inbox, for metrics and logs.
 *
 * @param kind what happened
 * @param consumer the consumer name
 * @param messageId the message id; null for {@link Kind#PRUNED}
 * @param attempts the record's attempt number when it happened; 0 when not applicable
 * @param error the handler's failure for FAILED and DEAD, the refusal for LEASE_LOST; else null
 * @param count records deleted, for PRUNED; else 0
 * @param at when the consumer saw it happen, by the consumer's own clock (for logs and metrics
 *     only: leases and retries never use this clock)
 */
public record InboxEvent(
    Kind kind,
    String consumer,
    String messageId,
    int attempts,
    Throwable error,
    long count,
    Instant at) {

  /** The kinds of event. */
  public enum Kind {
    /** This instance claimed a message (first claim or takeover) and is about to run it. */
    CLAIMED,
    /**
     * This instance took over an expired claim: the effect may run again. For effects outside the
     * database this is the observable count of possible repeats.
     */
    TAKEOVER,
    /** The handler ran and the record is DONE. */
    APPLIED,
    /** A redelivery of a DONE message; the handler did not run. */
    DUPLICATE,
    /** Another instance holds the message (or it waits for a retry); redeliver later. */
    IN_FLIGHT,
    /** The handler threw; the message will be retried after the backoff delay. */
    FAILED,
    /** The message was parked as DEAD by this instance; the dead-letter path ran. */
    DEAD,
    /** A fenced write was refused: this instance's claim was taken over. */
    LEASE_LOST,
    /** A running handler's lease was renewed. */
    LEASE_EXTENDED,
    /** DONE records older than the retention were deleted. */
    PRUNED
  }

  public InboxEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(at, "at");
  }
}
