package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The operator operations on a {@link JdbcInboxStore}'s table: each one the store's or its {@link
 * InboxAdmin}'s call, so the {@code inbox} commands, the operator page, the store gauges and the
 * Spring Boot health indicator and endpoint act on the table the same way. {@link #stats} is one
 * aggregate statement; every time is the database's. Owns nothing: closing the store's pool is its
 * owner's job. Thread-safe, as the store is.
 */
public final class JdbcInboxOperations implements InboxOperations {

  private final JdbcInboxStore store;

  /**
   * Operations on {@code store}'s table.
   *
   * @param store the store whose table is read and acted on
   * @throws InvalidArgumentException if {@code store} is null
   */
  public JdbcInboxOperations(JdbcInboxStore store) {
    if (store == null) {
      throw new InvalidArgumentException("store must not be null");
    }
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
    return store.admin().stats(retention);
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
