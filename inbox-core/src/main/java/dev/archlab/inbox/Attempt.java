package dev.archlab.inbox;

import java.time.Instant;

/** One claimed attempt at a message, handed to the {@link MessageHandler}. Thread-safe. */
public interface Attempt {

  /**
   * The consumer this attempt runs for.
   *
   * @return the logical consumer name, as given to the consumer's builder
   */
  String consumer();

  /**
   * The message this attempt runs.
   *
   * @return the producer-made message id
   */
  String messageId();

  /**
   * 1 for the first attempt; higher after failures or takeovers. Also the fencing token.
   *
   * @return the attempt number, at least 1
   */
  int number();

  /**
   * True when this attempt took over from an earlier one that failed or crashed.
   *
   * @return whether an earlier attempt at this message exists
   */
  boolean isRetry();

  /**
   * The current lease end, in the store's clock.
   *
   * @return the lease end, moved on by each successful extension
   */
  Instant leaseUntil();

  /**
   * A stable key for an external provider's own deduplication (e.g. an HTTP {@code
   * Idempotency-Key}): the same for every attempt at this message by this consumer.
   *
   * @return {@code consumer + ":" + messageId}
   */
  default String idempotencyKey() {
    return consumer() + ":" + messageId();
  }

  /**
   * Extends the lease to now + {@code lease} in the store's clock.
   *
   * @param lease how long from now the lease should last; must be positive
   * @return the new lease end, in the store's clock
   * @throws InvalidArgumentException if {@code lease} is zero or negative; nothing is changed
   * @throws LeaseLostException if another instance has taken the message over
   */
  Instant extendLease(java.time.Duration lease);

  /**
   * Keeps {@code result} with the DONE record, so duplicates get it back in {@link
   * Outcome#result()}. At most {@link InboxRecord#MAX_RESULT_BYTES} bytes.
   *
   * @param result the bytes to keep; the last call before the record is DONE wins
   * @throws InvalidArgumentException if the result is too large
   */
  void keepResult(byte[] result);
}
