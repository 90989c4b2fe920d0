package dev.archlab.inbox.ui;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.ConsumerStats;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The operator operations on a {@link JdbcInboxStore}'s table: each one the store's or its {@link
 * dev.archlab.inbox.jdbc.InboxAdmin}'s call, so the page, the {@code inbox} commands and the Spring
 * Boot endpoint act on the table the same way. Times are the database's. Owns nothing: closing the
 * store's pool is its owner's job. Needs {@code inbox-jdbc} on the class path (an optional
 * dependency of this module). Thread-safe, as the store is.
 */
public final class JdbcInboxOperations implements InboxOperations {

  private final JdbcInboxStore store;

  /**
   * Operations on {@code store}'s table.
   *
   * @param store the store whose table the page reads and acts on
   */
  public JdbcInboxOperations(JdbcInboxStore store) {
    this.store = java.util.Objects.requireNonNull(store, "store");
  }

  @Override
  public String location() {
    return "table " + store.table();
  }

  @Override
  public Instant currentTime() {
    return store.currentTime();
  }

  @Override
  public List<ConsumerOverview> stats(Duration retention) {
    return store.admin().stats(retention).stream().map(JdbcInboxOperations::overview).toList();
  }

  private static ConsumerOverview overview(ConsumerStats s) {
    return new ConsumerOverview(
        s.consumer(),
        s.processing(),
        s.done(),
        s.dead(),
        s.expiredLeases(),
        s.oldestProcessingAge(),
        s.pastRetention());
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
    return store.admin().release(consumer, messageId);
  }

  @Override
  public long retryDead(String consumer, List<String> messageIds) {
    return store.admin().retryDead(consumer, messageIds);
  }

  @Override
  public long countPrunable(String consumer, Instant before) {
    return store.admin().countPrunable(consumer, before);
  }

  @Override
  public long prune(String consumer, Instant before, LongConsumer progress) {
    return store.admin().prune(consumer, before, progress);
  }
}
