package dev.archlab.inbox.operator;

import dev.archlab.inbox.InboxRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One consumer's records at a glance, the same for every store: what the {@code inbox status}
 * command, the operator page, the store gauges and the health indicator show. Immutable.
 *
 * @param consumer the consumer name
 * @param processing records in PROCESSING (running, or waiting for a retry)
 * @param done records in DONE (on Redis: those not yet expired)
 * @param dead records in DEAD
 * @param expiredLeases PROCESSING records whose lease or retry time has passed (stuck, if it stays
 *     high)
 * @param oldestProcessingAge how long the oldest PROCESSING record has existed by the store's
 *     clock; zero when none (a record created while the figures were read may show a slightly
 *     negative age)
 * @param pastRetention DONE records not updated for the retention, waiting to be pruned
 */
public record ConsumerOverview(
    String consumer,
    long processing,
    long done,
    long dead,
    long expiredLeases,
    Duration oldestProcessingAge,
    long pastRetention) {

  /**
   * Validates the overview.
   *
   * @param consumer the consumer name
   * @param processing records in PROCESSING
   * @param done records in DONE
   * @param dead records in DEAD
   * @param expiredLeases PROCESSING records whose lease or retry time has passed
   * @param oldestProcessingAge how long the oldest PROCESSING record has existed
   * @param pastRetention DONE records past the retention
   * @throws NullPointerException if the consumer or the age is null
   */
  public ConsumerOverview {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(oldestProcessingAge, "oldestProcessingAge");
  }

  /**
   * The overview of a store that cannot count expired leases and ages itself but can list every
   * PROCESSING record (they are the few in flight): the stuck leases and the oldest age are counted
   * here, once for every such store.
   *
   * @param consumer the consumer name
   * @param processingRecords every PROCESSING record of the consumer
   * @param done records in DONE
   * @param dead records in DEAD
   * @param pastRetention DONE records past the retention
   * @param now the store's clock
   * @return the overview
   */
  public static ConsumerOverview fromProcessingRecords(
      String consumer,
      Iterable<InboxRecord> processingRecords,
      long done,
      long dead,
      long pastRetention,
      Instant now) {
    long processing = 0;
    long expired = 0;
    Duration oldest = Duration.ZERO;
    for (InboxRecord r : processingRecords) {
      processing++;
      if (r.leaseUntil() != null && !r.leaseUntil().isAfter(now)) {
        expired++;
      }
      Duration age = Duration.between(r.createdAt(), now);
      if (age.compareTo(oldest) > 0) {
        oldest = age;
      }
    }
    return new ConsumerOverview(consumer, processing, done, dead, expired, oldest, pastRetention);
  }
}
