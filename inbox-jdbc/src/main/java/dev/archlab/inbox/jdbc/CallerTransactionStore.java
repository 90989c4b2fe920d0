package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ForwardingInboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;

/**
 * The view of a {@link JdbcInboxStore} that a caller-transaction delivery writes through on a
 * database with one writer at a time ({@link
 * dev.archlab.inbox.jdbc.dialect.JdbcDialect#oneWriterAtATime()}): the claim, a failed attempt, the
 * move to DEAD, the completion and the lease extensions all run in the caller's open transaction,
 * on the connection the supplier returns, and commit or roll back with it. A connection of the
 * store's own would wait for the write lock that very transaction holds.
 *
 * <p>Guarantees: no write of the delivery goes anywhere but the caller's connection, so none can
 * wait for the caller's lock; nothing here commits, rolls back or changes the caller's auto-commit.
 * Reads that do not belong to the delivery ({@link #find}, {@link #list}, {@link #currentTime}) and
 * {@link #prune} go to the store itself, through the forwarding this class inherits. Used only on
 * the thread that consumes the delivery: a JDBC connection is not for two threads at once, which is
 * why the consumer runs no heartbeat on it.
 */
final class CallerTransactionStore extends ForwardingInboxStore {

  private final JdbcInboxStore store;
  private final ConnectionSupplier callerConnection;

  CallerTransactionStore(JdbcInboxStore store, ConnectionSupplier callerConnection) {
    super(Objects.requireNonNull(store, "store"));
    this.store = store;
    this.callerConnection = Objects.requireNonNull(callerConnection, "callerConnection");
  }

  private Connection caller(String operation) {
    try {
      return Objects.requireNonNull(
          callerConnection.get(), "the caller's connection supplier returned null");
    } catch (SQLException e) {
      throw store.jdbc.translate(operation + " (getting the caller's connection)", e);
    }
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    return store.begin(caller("begin"), request);
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    return store.complete(caller("complete"), claim, result);
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    Objects.requireNonNull(claim, "claim");
    ArgumentChecks.requireNonNegative(retryDelay, "retryDelay");
    Connection c = caller("fail");
    return store.jdbc.onCallerConnection(
        "fail", c, s -> store.rows.failOn(c, s, claim, error, retryDelay));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    Objects.requireNonNull(claim, "claim");
    Connection c = caller("mark dead");
    return store.jdbc.onCallerConnection(
        "mark dead", c, s -> store.rows.markDeadOn(c, s, claim, error));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    return store.extend(caller("extend"), claim, lease);
  }

  @Override
  public String toString() {
    return "caller-transaction view of " + store.table();
  }
}
