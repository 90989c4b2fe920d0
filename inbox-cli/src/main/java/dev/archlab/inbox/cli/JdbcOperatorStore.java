package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.ConsumerStats;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.ui.ConsumerOverview;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The operator commands and page on a JDBC table: each call is the {@link JdbcInboxStore} or its
 * {@link dev.archlab.inbox.jdbc.InboxAdmin} call the commands have always made. Owns the pool.
 */
final class JdbcOperatorStore implements OperatorStore {

  private final HikariDataSource dataSource;
  private final JdbcInboxStore store;

  JdbcOperatorStore(HikariDataSource dataSource, JdbcInboxStore store) {
    this.dataSource = dataSource;
    this.store = store;
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
    return store.admin().stats(retention).stream().map(JdbcOperatorStore::neutral).toList();
  }

  private static ConsumerOverview neutral(ConsumerStats s) {
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

  @Override
  public void close() {
    dataSource.close();
  }
}
