package dev.archlab.inbox;

/** The state of a dedup record. */
public enum RecordState {
  /**
   * Claimed by an instance, or waiting for a retry after a failure. The record's {@code leaseUntil}
   * says until when nobody else may claim it.
   */
  PROCESSING,
  /** The effect happened. Terminal: redeliveries are duplicates until the record is pruned. */
  DONE,
  /** Parked after the maximum number of attempts. Terminal until an operator retries it. */
  DEAD
}
