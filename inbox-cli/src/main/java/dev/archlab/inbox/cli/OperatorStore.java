package dev.archlab.inbox.cli;

import dev.archlab.inbox.operator.InboxOperations;

/**
 * The operator operations ({@link InboxOperations}: what {@code status}, {@code list}, {@code
 * show}, {@code release}, {@code retry-dead}, {@code prune} and the {@code ui} page need) on
 * whatever holds the records, a JDBC table ({@link dev.archlab.inbox.jdbc.JdbcInboxOperations}) or
 * Redis ({@link dev.archlab.inbox.redis.RedisInboxOperations}), together with the connections a
 * command opened for them. One implementation per store kind serves the commands, the page and the
 * Spring Boot starter; closing this releases the connections.
 */
final class OperatorStore implements AutoCloseable {

  private final InboxOperations operations;
  private final Runnable closeConnections;

  OperatorStore(InboxOperations operations, Runnable closeConnections) {
    this.operations = operations;
    this.closeConnections = closeConnections;
  }

  InboxOperations operations() {
    return operations;
  }

  @Override
  public void close() {
    closeConnections.run();
  }
}
