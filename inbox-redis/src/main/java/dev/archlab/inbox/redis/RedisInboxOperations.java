package dev.archlab.inbox.redis;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The operator operations on a {@link RedisInboxStore}: what the {@code inbox} commands, the
 * operator page, the store gauges and the Spring Boot health indicator and endpoint read and do on
 * Redis. PROCESSING and DEAD counts are exact (those records never expire); DONE counts the records
 * Redis has not expired yet, read page by page, so {@link #stats} costs time in proportion to the
 * DONE records. Every time is the Redis server's. Owns nothing: closing the store's connection is
 * its owner's job. Thread-safe, as the store is.
 */
public final class RedisInboxOperations implements InboxOperations {

  /**
   * Past any record's last update: the cut-off that counts every DONE record. A day past the
   * server's clock, so records updated while the count runs are counted too.
   */
  private static final Duration EVERY_RECORD = Duration.ofDays(1);

  private final RedisInboxStore store;
  private final RedisInboxAdmin admin;

  /**
   * Operations on {@code store}'s records.
   *
   * @param store the store whose records are read and acted on
   * @throws InvalidArgumentException if {@code store} is null
   */
  public RedisInboxOperations(RedisInboxStore store) {
    if (store == null) {
      throw new InvalidArgumentException("store must not be null");
    }
    this.store = store;
    this.admin = store.admin();
  }

  @Override
  public String location() {
    return "Redis key prefix '" + store.settings().keyPrefix() + "'";
  }

  @Override
  public Instant currentTime() {
    return store.currentTime();
  }

  @Override
  public List<ConsumerOverview> stats(Duration retention) {
    Instant now = store.currentTime();
    List<ConsumerOverview> stats = new ArrayList<>();
    for (RedisInboxAdmin.ConsumerCounts counts : admin.counts()) {
      String consumer = counts.consumer();
      long done = admin.countPrunable(consumer, now.plus(EVERY_RECORD));
      if (counts.processing() == 0 && done == 0 && counts.dead() == 0) {
        continue; // a consumer whose records all expired or were pruned, as a table would not list
      }
      long pastRetention = admin.countPrunable(consumer, now.minus(retention));
      // PROCESSING records are the few in flight: reading them gives stuck leases and the oldest.
      stats.add(
          ConsumerOverview.fromProcessingRecords(
              consumer,
              store.list(RecordState.PROCESSING, consumer, Integer.MAX_VALUE),
              done,
              counts.dead(),
              pastRetention,
              now));
    }
    return List.copyOf(stats);
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    return store.list(state, consumer, limit);
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    return store.find(consumer, messageId);
  }

  @Override
  public Optional<InboxRecord> release(String consumer, String messageId) {
    return admin.release(consumer, messageId);
  }

  @Override
  public long retryDead(String consumer, List<String> messageIds) {
    return admin.retryDead(consumer, messageIds);
  }

  @Override
  public long countPrunable(String consumer, Instant before) {
    return admin.countPrunable(consumer, before);
  }

  @Override
  public long prune(String consumer, Instant before, LongConsumer progress) {
    return admin.prune(consumer, before, progress);
  }
}
