package dev.archlab.inbox.store;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a store's {@code begin} decided, with the record as it stands after the decision and the
 * store's clock reading at that moment.
 *
 * @param kind the decision
 * @param record the record after the decision
 * @param storeTime the store's "now" used for the decision
 */
public record BeginResult(Kind kind, InboxRecord record, Instant storeTime) {

  /** The decisions {@code begin} can take. */
  public enum Kind {
    /** No record existed; one was inserted in PROCESSING with attempts 1. The caller owns it. */
    CLAIMED,
    /**
     * The lease of a running attempt had expired (its owner crashed, stalled or was cut off):
     * attempts went up by one and the caller owns it now. The earlier run may have had effects.
     */
    TAKEN_OVER,
    /**
     * The retry time of a recorded failure ({@code fail}) had passed: attempts went up by one and
     * the caller owns it now. No lease ran out under anyone, so this is not a takeover.
     */
    RETRIED,
    /** The record is DONE: a redelivery of a finished message. */
    DUPLICATE,
    /** The record is PROCESSING and its lease (or retry time) has not passed. */
    IN_FLIGHT,
    /** The record was already DEAD. */
    DEAD,
    /**
     * This call found an expired claim that had used up its attempts and parked it as DEAD. Exactly
     * one caller sees this for a record, so it is the one that runs the dead-letter path.
     */
    DIED
  }

  /**
   * Checks that every component is present.
   *
   * @param kind the decision
   * @param record the record after the decision
   * @param storeTime the store's "now" used for the decision
   * @throws NullPointerException if any component is null
   */
  public BeginResult {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(storeTime, "storeTime");
  }

  /**
   * True when the caller owns the message now and must run the effect.
   *
   * @return whether the kind is CLAIMED, TAKEN_OVER or RETRIED
   */
  public boolean claimed() {
    return kind == Kind.CLAIMED || kind == Kind.TAKEN_OVER || kind == Kind.RETRIED;
  }

  /**
   * The claim to run the effect under.
   *
   * @return the record's claim: its key, attempts as fencing token and lease end
   * @throws IllegalStateException if this result is not a claim
   */
  public Claim claim() {
    if (!claimed()) {
      throw new IllegalStateException("begin did not claim the message: " + kind);
    }
    return record.toClaim();
  }

  /**
   * For IN_FLIGHT: how long until the lease or retry time passes, never negative.
   *
   * @return the time from {@code storeTime} to the record's lease end, or zero when it has none or
   *     it has passed
   */
  public Duration retryAfter() {
    if (record.leaseUntil() == null || !record.leaseUntil().isAfter(storeTime)) {
      return Duration.ZERO;
    }
    return Duration.between(storeTime, record.leaseUntil());
  }

  /**
   * Same as the constructor.
   *
   * @param kind the decision
   * @param record the record after the decision
   * @param storeTime the store's "now" used for the decision
   * @return the result
   * @throws NullPointerException if any argument is null
   */
  public static BeginResult of(Kind kind, InboxRecord record, Instant storeTime) {

    return new BeginResult(kind, record, storeTime);
  }
}
