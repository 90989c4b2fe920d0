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
 * @param error the handler's failure for FAILED and DEAD, the refusal for LEASE_LOST, the failure
 *     to record DONE for COMPLETION_FAILED; else null
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

  /** The kinds of event: one kind per cause, so each can be counted and alerted on alone. */
  public enum Kind {
    /** This instance claimed a message (first claim or takeover) and is about to run it. */
    CLAIMED,
    /**
     * This instance took over a claim whose lease ran out under another run (it crashed, stalled or
     * lost its connection): the effect may run again. For effects outside the database this is the
     * observable count of possible repeats. A due retry after a recorded failure is {@link #RETRY}.
     */
    TAKEOVER,
    /**
     * This instance claimed a message whose earlier attempt failed (the handler threw and the
     * failure was recorded) once its retry time had passed. An ordinary retry with backoff, not a
     * takeover: no lease ran out under anyone.
     */
    RETRY,
    /** The handler ran and the record is DONE. */
    APPLIED,
    /** A redelivery of a DONE message; the handler did not run. */
    DUPLICATE,
    /** Another instance holds the message (or it waits for a retry); redeliver later. */
    IN_FLIGHT,
    /** The handler threw; the message will be retried after the backoff delay. */
    FAILED,
    /**
     * The message was parked as DEAD by this instance and the dead-letter path ran: exactly one
     * such event per parked message, so counting it counts poison messages. A later delivery of the
     * parked message is {@link #DEAD_SEEN} instead.
     */
    DEAD,
    /** A fenced write was refused: this instance's claim was taken over. */
    LEASE_LOST,
    /** A running handler's lease was renewed. */
    LEASE_EXTENDED,
    /**
     * The handler returned and DONE was recorded, but at or after the end of its lease by the
     * store's clock (the database's for database stores). Nobody had taken the message over, so the
     * fenced completion still succeeded; but from the lease end on, a redelivery could have run the
     * handler a second time, so an effect outside the store may have happened twice. Emitted before
     * {@link #APPLIED}; the consumer also logs one warning per consumer instance. Choose a longer
     * lease or {@code heartbeat()}.
     */
    LEASE_OVERRUN,
    /** DONE records older than the retention were deleted. */
    PRUNED,
    /**
     * A delivery found the record already DEAD: neither the handler nor the dead-letter path ran,
     * the outcome is {@link Outcome.Status#DEAD} (acknowledge). Counts deliveries of parked
     * messages, for example a broker still redelivering them; unlike {@link #DEAD} it may occur any
     * number of times per message.
     */
    DEAD_SEEN,
    /**
     * The handler returned, but recording DONE failed for a reason other than a lost lease (the
     * store was unreachable, the commit failed): {@code consume} throws, the claim is left to
     * expire and the message runs again after its lease, so an effect outside the store's
     * transaction may happen twice. This is the observable count of such possible repeats
     * (docs/DESIGN.md §5); {@link #error()} is the failure.
     */
    COMPLETION_FAILED
  }

  /**
   * Checks the required components.
   *
   * @param kind what happened
   * @param consumer the consumer name
   * @param messageId the message id; null for {@link Kind#PRUNED}
   * @param attempts the record's attempt number when it happened; 0 when not applicable
   * @param error the failure for FAILED, DEAD, LEASE_LOST and COMPLETION_FAILED; else null
   * @param count records deleted, for PRUNED; else 0
   * @param at when the consumer saw it happen, by the consumer's own clock
   * @throws NullPointerException if {@code kind}, {@code consumer} or {@code at} is null
   */
  public InboxEvent {

    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(at, "at");
  }
}
