package dev.archlab.inbox.store;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The storage of dedup records: a handful of atomic primitives. The consuming algorithm (claim,
 * run, complete or fail, dead-letter, events) lives once in {@link
 * dev.archlab.inbox.IdempotentConsumer}; a store only has to make each primitive atomic per key.
 *
 * <p>Every time a store reads or writes (lease ends, retry times, {@code updatedAt}) comes from the
 * store's own clock, never the caller's, so callers with skewed clocks cannot steal live leases.
 *
 * <p>An argument out of range is refused with {@link InvalidArgumentException} (or the subclass for
 * a bad id or consumer name) before anything is read or written; a {@code null} argument where none
 * is allowed with {@link NullPointerException}.
 *
 * <p>Implementations must pass the contract suite in {@code inbox-testkit}. All methods are
 * thread-safe.
 */
public interface InboxStore {

  /**
   * Claims a message if nobody else may be running it. Atomic: of any number of concurrent calls
   * for one key, at most one is claimed.
   *
   * <ul>
   *   <li>no record: insert PROCESSING, attempts 1, lease from now → {@code CLAIMED}
   *   <li>DONE → {@code DUPLICATE}; DEAD → {@code DEAD}
   *   <li>PROCESSING, now before {@code leaseUntil} → {@code IN_FLIGHT}
   *   <li>PROCESSING, lease passed, attempts below {@code maxAttempts} → attempts + 1, new lease,
   *       {@code lastError} cleared → {@code RETRIED} if the record had a {@code lastError} (it was
   *       waiting for the retry of a recorded {@link #fail}), else {@code TAKEN_OVER} (a running
   *       attempt's lease ran out)
   *   <li>PROCESSING, lease passed, attempts at {@code maxAttempts} → DEAD → {@code DIED}
   * </ul>
   *
   * @param request the validated key, lease, attempt limit and optional payload hash
   * @return the decision, the record after it and the store time it was taken at
   * @throws PayloadMismatchException if the request carries a payload hash, the record has one, and
   *     they differ; the record is unchanged
   */
  BeginResult begin(BeginRequest request);

  /**
   * Marks the claimed message DONE and clears the lease, keeping {@code result} (may be null) for
   * duplicates.
   *
   * @param claim the caller's claim; its fencing token must still be current
   * @param result bytes to keep for duplicates; null for none
   * @return the record after it became DONE
   * @throws LeaseLostException if the record is no longer PROCESSING under this claim's token
   * @throws UnknownClaimException if no such record exists or the token was never issued
   * @throws InvalidArgumentException if {@code result} is over {@link InboxRecord#MAX_RESULT_BYTES}
   */
  InboxRecord complete(Claim claim, byte[] result);

  /**
   * Records a failed attempt: the record stays PROCESSING, {@code lastError} is set and no one may
   * claim it before {@code retryDelay} has passed in the store's clock. Fenced like {@link
   * #complete}.
   *
   * @param claim the caller's claim; its fencing token must still be current
   * @param error what failed, kept as {@code lastError} (bounded to {@link
   *     InboxRecord#MAX_ERROR_LENGTH} characters)
   * @param retryDelay how long from now, in the store's clock, before the message may be claimed
   *     again; zero allowed
   * @return the record after the failure was recorded
   * @throws LeaseLostException if the record is no longer PROCESSING under this claim's token
   * @throws UnknownClaimException if no such record exists or the token was never issued
   * @throws InvalidArgumentException if {@code retryDelay} is negative
   */
  InboxRecord fail(Claim claim, String error, Duration retryDelay);

  /**
   * Parks the claimed message as DEAD with {@code error}. Fenced like {@link #complete}.
   *
   * @param claim the caller's claim; its fencing token must still be current
   * @param error why it was parked, kept as {@code lastError} (bounded to {@link
   *     InboxRecord#MAX_ERROR_LENGTH} characters)
   * @return the DEAD record
   * @throws LeaseLostException if the record is no longer PROCESSING under this claim's token
   * @throws UnknownClaimException if no such record exists or the token was never issued
   */
  InboxRecord markDead(Claim claim, String error);

  /**
   * Moves the lease end to now + {@code lease} in the store's clock, for a long handler. Fenced
   * like {@link #complete}.
   *
   * @param claim the caller's claim; its fencing token must still be current
   * @param lease how long from now the lease should last
   * @return the claim with its new lease end
   * @throws LeaseLostException if the record is no longer PROCESSING under this claim's token
   * @throws UnknownClaimException if no such record exists or the token was never issued
   * @throws InvalidArgumentException if {@code lease} is zero or negative
   */
  Claim extend(Claim claim, Duration lease);

  /**
   * Deletes DONE records whose {@code updatedAt} is before {@code before}, for every consumer.
   * Never touches PROCESSING or DEAD records.
   *
   * @param before the cut-off, compared with {@code updatedAt} in the store's clock
   * @return how many records were deleted
   */
  long prune(Instant before);

  /**
   * Like {@link #prune(Instant)}, limited to one consumer's records.
   *
   * @param consumer the consumer whose DONE records are pruned
   * @param before the cut-off, compared with {@code updatedAt} in the store's clock
   * @return how many records were deleted
   */
  long prune(String consumer, Instant before);

  /**
   * The record for one key, if there is one.
   *
   * @param consumer the logical consumer name
   * @param messageId the message id
   * @return a snapshot of the record, or empty when none exists
   */
  Optional<InboxRecord> find(String consumer, String messageId);

  /**
   * Up to {@code limit} records in {@code state}, oldest {@code createdAt} first.
   *
   * @param state the state to list
   * @param consumer only this consumer's records; null for all consumers
   * @param limit the most records to return; zero returns none
   * @return snapshots of the records, oldest first
   * @throws InvalidArgumentException if {@code limit} is negative
   */
  List<InboxRecord> list(RecordState state, String consumer, int limit);

  /**
   * The store's clock reading: the time leases and retention are measured against.
   *
   * @return the store's "now"
   */
  Instant currentTime();
}
