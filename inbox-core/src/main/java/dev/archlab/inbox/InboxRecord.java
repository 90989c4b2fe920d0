package dev.archlab.inbox;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable snapshot of one dedup record, keyed by {@code (consumer, messageId)}. Timestamps are
 * in the store's clock.
 *
 * @param consumer the logical consumer name
 * @param messageId the producer-made message id
 * @param state PROCESSING, DONE or DEAD
 * @param attempts how many times the message was claimed; also the current fencing token
 * @param leaseUntil for PROCESSING: end of the lease or, after a failure, the earliest retry time;
 *     null otherwise
 * @param createdAt when the first claim inserted the record
 * @param updatedAt when the record last changed state, lease or attempts
 * @param lastError the last failure, at most {@link #MAX_ERROR_LENGTH} characters; null if none. On
 *     a PROCESSING record it is set only while the record waits for the retry of a recorded
 *     failure: a new attempt starts without one, which is how {@code begin} tells a due retry from
 *     a takeover. On a DEAD record it says why it was parked
 * @param payloadHash hex fingerprint of the first delivery's payload; null when not recorded
 * @param result bytes the handler asked to keep for answering duplicates; null when none
 */
public record InboxRecord(
    String consumer,
    String messageId,
    RecordState state,
    int attempts,
    Instant leaseUntil,
    Instant createdAt,
    Instant updatedAt,
    String lastError,
    String payloadHash,
    byte[] result) {

  /** Longest {@code lastError} kept; longer texts are cut so a record stays small. */
  public static final int MAX_ERROR_LENGTH = 1000;

  /** Largest result a store must accept. */
  public static final int MAX_RESULT_BYTES = 64 * 1024;

  /**
   * Validates the snapshot and copies {@code result}, so the record stays immutable.
   *
   * @param consumer the logical consumer name
   * @param messageId the producer-made message id
   * @param state PROCESSING, DONE or DEAD
   * @param attempts how many times the message was claimed, at least 1
   * @param leaseUntil end of the lease or retry time; required in state PROCESSING
   * @param createdAt when the first claim inserted the record
   * @param updatedAt when the record last changed
   * @param lastError the last failure; null if none
   * @param payloadHash hex fingerprint of the first delivery's payload; null when not recorded
   * @param result bytes kept for answering duplicates; null when none
   * @throws NullPointerException if a key, the state, a timestamp, or in state PROCESSING the lease
   *     end is null
   * @throws InvalidArgumentException if {@code attempts} is below 1
   */
  public InboxRecord {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if (attempts < 1) {
      throw new InvalidArgumentException("attempts must be >= 1, was " + attempts);
    }
    if (state == RecordState.PROCESSING) {
      Objects.requireNonNull(leaseUntil, "leaseUntil is required in state PROCESSING");
    }
    result = result == null ? null : result.clone();
  }

  /**
   * The bytes kept for duplicates, as a copy.
   *
   * @return a fresh copy of the kept result, or null when none
   */
  @Override
  public byte[] result() {
    return result == null ? null : result.clone();
  }

  /**
   * The kept result, if any, as a copy.
   *
   * @return a fresh copy of the kept result, or empty when none
   */
  public Optional<byte[]> keptResult() {
    return Optional.ofNullable(result());
  }

  /**
   * This record after a transition: a new state, attempt count, lease end, update time and last
   * error; key, creation time, payload hash and result stay as they are.
   *
   * @param newState the state after the transition
   * @param newAttempts the attempt count after the transition
   * @param newLeaseUntil the lease end or retry time after it; may be null unless PROCESSING
   * @param newUpdatedAt when the transition happened, in the store's clock
   * @param newLastError the last error after it; null for none
   * @return a new record; this one is unchanged
   * @throws NullPointerException if {@code newState} or {@code newUpdatedAt} is null, or {@code
   *     newLeaseUntil} is null for PROCESSING
   * @throws InvalidArgumentException if {@code newAttempts} is below 1
   */
  public InboxRecord transitioned(
      RecordState newState,
      int newAttempts,
      Instant newLeaseUntil,
      Instant newUpdatedAt,
      String newLastError) {
    return new InboxRecord(
        consumer,
        messageId,
        newState,
        newAttempts,
        newLeaseUntil,
        createdAt,
        newUpdatedAt,
        newLastError,
        payloadHash,
        result);
  }

  /**
   * The claim this record represents, meaningful only while it is PROCESSING.
   *
   * @return a claim with this key, the attempt count as fencing token and the lease end
   * @throws NullPointerException if the record has no lease end (it is not PROCESSING)
   */
  public Claim toClaim() {
    return new Claim(consumer, messageId, attempts, leaseUntil);
  }

  /**
   * Cuts an error text to {@link #MAX_ERROR_LENGTH} characters, never splitting a surrogate pair.
   *
   * @param error the text to bound; may be null
   * @return {@code error} itself when null or short enough, else its first {@link
   *     #MAX_ERROR_LENGTH} characters (one fewer if the last would be a lone high surrogate)
   */
  public static String boundError(String error) {
    if (error == null || error.length() <= MAX_ERROR_LENGTH) {
      return error;
    }
    int end = MAX_ERROR_LENGTH;
    if (Character.isHighSurrogate(error.charAt(end - 1))) {
      end--;
    }
    return error.substring(0, end);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InboxRecord r
        && attempts == r.attempts
        && consumer.equals(r.consumer)
        && messageId.equals(r.messageId)
        && state == r.state
        && Objects.equals(leaseUntil, r.leaseUntil)
        && createdAt.equals(r.createdAt)
        && updatedAt.equals(r.updatedAt)
        && Objects.equals(lastError, r.lastError)
        && Objects.equals(payloadHash, r.payloadHash)
        && Arrays.equals(result, r.result);
  }

  @Override
  public int hashCode() {
    return Objects.hash(consumer, messageId, state, attempts, leaseUntil, updatedAt);
  }

  @Override
  public String toString() {
    return "InboxRecord[consumer="
        + consumer
        + ", messageId="
        + messageId
        + ", state="
        + state
        + ", attempts="
        + attempts
        + ", leaseUntil="
        + leaseUntil
        + ", createdAt="
        + createdAt
        + ", updatedAt="
        + updatedAt
        + ", lastError="
        + lastError
        + ", payloadHash="
        + payloadHash
        + ", result="
        + (result == null ? "null" : result.length + " bytes")
        + "]";
  }
}
