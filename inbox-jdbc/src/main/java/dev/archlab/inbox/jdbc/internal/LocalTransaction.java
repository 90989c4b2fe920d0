package dev.archlab.inbox.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A transaction on a pooled connection that can only end in an explicit commit or a rollback.
 * Closing it without a commit rolls back first and only then restores autocommit: restoring
 * autocommit on an open transaction would commit it, which after a handler failure or a crash of
 * the consuming thread would commit half an effect.
 */
public final class LocalTransaction implements AutoCloseable {

  private final Connection connection;
  private final boolean autoCommit;
  private boolean ended;

  public LocalTransaction(Connection connection) throws SQLException {
    this.connection = connection;
    this.autoCommit = connection.getAutoCommit();
    if (autoCommit) {
      connection.setAutoCommit(false);
    }
  }

  public Connection connection() {
    return connection;
  }

  public void commit() throws SQLException {
    connection.commit();
    ended = true;
  }

  /** Rolls back; a failure to do so is attached to {@code cause} rather than hiding it. */
  public void rollback(Throwable cause) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
    ended = true;
  }

  /** Rolls back and tells whether that worked. */
  public void rollback() throws SQLException {
    connection.rollback();
    ended = true;
  }

  @Override
  public void close() {
    try {
      if (!ended) {
        connection.rollback();
      }
      if (autoCommit && !connection.isClosed()) {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      // Nothing was committed; the pool discards or resets a connection it cannot use.
    }
  }
}
