package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.InvalidArgumentException;
import java.time.Duration;

/**
 * One consumer's records as a store reports them at one moment, the figures behind the store
 * gauges. Immutable.
 *
 * @param consumer the consumer name
 * @param processing records in PROCESSING (running, or waiting for a retry)
 * @param done records in DONE
 * @param dead records in DEAD
 * @param expiredLeases PROCESSING records whose lease or retry time has passed by the store's
 *     clock: their owner died or nobody redelivered them yet (stuck, if the number stays up)
 * @param oldestProcessingAge how long the oldest PROCESSING record has existed, by the store's
 *     clock; zero when there is none
 */
public record InboxStats(
    String consumer,
    long processing,
    long done,
    long dead,
    long expiredLeases,
    Duration oldestProcessingAge) {

  /**
   * Checks the figures.
   *
   * @param consumer the consumer name
   * @param processing records in PROCESSING
   * @param done records in DONE
   * @param dead records in DEAD
   * @param expiredLeases PROCESSING records whose lease or retry time has passed
   * @param oldestProcessingAge age of the oldest PROCESSING record; zero when none
   * @throws InvalidArgumentException if {@code consumer} or {@code oldestProcessingAge} is null, a
   *     count or the age is negative, or more leases expired than records are PROCESSING
   */
  public InboxStats {
    if (consumer == null) {
      throw new InvalidArgumentException("consumer must not be null");
    }
    requireCount("processing", processing, consumer);
    requireCount("done", done, consumer);
    requireCount("dead", dead, consumer);
    requireCount("expiredLeases", expiredLeases, consumer);
    if (expiredLeases > processing) {
      throw new InvalidArgumentException(
          "expiredLeases ("
              + expiredLeases
              + ") exceeds processing ("
              + processing
              + ") for consumer '"
              + consumer
              + "'");
    }
    if (oldestProcessingAge == null || oldestProcessingAge.isNegative()) {
      throw new InvalidArgumentException(
          "oldestProcessingAge must be zero or positive for consumer '"
              + consumer
              + "', was "
              + oldestProcessingAge);
    }
  }

  /**
   * The figures of a consumer that has no records.
   *
   * @param consumer the consumer name
   * @return all counts zero, age zero
   */
  public static InboxStats empty(String consumer) {
    return new InboxStats(consumer, 0, 0, 0, 0, Duration.ZERO);
  }

  private static void requireCount(String name, long value, String consumer) {
    if (value < 0) {
      throw new InvalidArgumentException(
          name + " must be >= 0 for consumer '" + consumer + "', was " + value);
    }
  }
}
