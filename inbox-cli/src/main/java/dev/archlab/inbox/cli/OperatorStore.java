package dev.archlab.inbox.cli;

import dev.archlab.inbox.operator.InboxOperations;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The operator operations ({@link InboxOperations}: what {@code status}, {@code list}, {@code
 * show}, {@code release}, {@code retry-dead}, {@code prune} and the {@code ui} page need) on
 * whatever holds the records, a JDBC table ({@link dev.archlab.inbox.jdbc.JdbcInboxOperations}) or
 * Redis ({@link dev.archlab.inbox.redis.RedisInboxOperations}), together with the connections a
 * command opened for them. One implementation per store kind serves the commands, the page and the
 * Spring Boot starter; closing this releases the connections. A JDBC store also lends its pool, so
 * that the page reads an outbox table in the same database on the same connections.
 */
final class OperatorStore implements AutoCloseable {

  private final InboxOperations operations;
  private final DataSource dataSource;
  private final Runnable closeConnections;

  /** A store with no SQL database (Redis). */
  OperatorStore(InboxOperations operations, Runnable closeConnections) {
    this(operations, null, closeConnections);
  }

  /** A store in the SQL database behind {@code dataSource}; null for none. */
  OperatorStore(InboxOperations operations, DataSource dataSource, Runnable closeConnections) {
    this.operations = operations;
    this.dataSource = dataSource;
    this.closeConnections = closeConnections;
  }

  InboxOperations operations() {
    return operations;
  }

  /** The JDBC store's pool, closed with this; empty for Redis. */
  Optional<DataSource> dataSource() {
    return Optional.ofNullable(dataSource);
  }

  @Override
  public void close() {
    closeConnections.run();
  }
}
