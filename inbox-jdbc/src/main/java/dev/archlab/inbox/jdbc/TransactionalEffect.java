package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.store.ClaimedEffect;
import dev.archlab.inbox.store.ClaimedRun;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs a {@link TransactionalHandler} and the fenced completion in one database transaction, so the
 * business writes and DONE commit together or not at all. If the fence fails (another instance took
 * the message over), the whole transaction is rolled back and {@link
 * dev.archlab.inbox.LeaseLostException} is thrown: a stale owner's business writes never commit.
 *
 * <p>The handler gets a guarded view of the connection: {@code commit()}, {@code rollback()},
 * {@code setAutoCommit}, {@code close()} and {@code abort} throw {@link IllegalStateException} and
 * fail the attempt (even if the handler catches the refusal), because they would end a transaction
 * the handler does not own; savepoints are allowed.
 *
 * <p>Made by {@link JdbcInboxStore#transactional} (own connection, commits) or {@link
 * JdbcInboxStore#inCallerTransaction} (the caller's connection; the caller commits or rolls back).
 */
public final class TransactionalEffect implements ClaimedEffect {

  private final JdbcInboxStore store;
  private final TransactionalHandler handler;
  private final ConnectionSupplier callerConnection;

  TransactionalEffect(
      JdbcInboxStore store, TransactionalHandler handler, ConnectionSupplier callerConnection) {
    this.store = store;
    this.handler = java.util.Objects.requireNonNull(handler, "handler");
    this.callerConnection = callerConnection;
  }

  @Override
  public InboxRecord runAndComplete(ClaimedRun run) throws Exception {
    if (callerConnection != null) {
      Connection c = callerConnection.get();
      GuardedConnection guard = GuardedConnection.aroundCallers(c);
      handler.handle(run.message(), run.attempt(), guard.connection());
      guard.throwIfRefused();
      Claim claim = run.handlerReturned();
      return store.complete(c, claim, run.keptResult());
    }
    try (Connection c = store.dataSource().getConnection();
        LocalTransaction tx = new LocalTransaction(c)) {
      GuardedConnection guard = GuardedConnection.around(c);
      try {
        handler.handle(run.message(), run.attempt(), guard.connection());
        guard.throwIfRefused();
      } catch (Exception e) {
        tx.rollback(e);
        throw e;
      }
      Claim claim = run.handlerReturned();
      InboxRecord done;
      try {
        done = store.rows.completeOn(c, claim, run.keptResult());
      } catch (SQLException e) {
        tx.rollback(e);
        throw store.jdbc.translate("complete", e);
      } catch (RuntimeException e) {
        // Lease lost or unknown claim: the business writes must not commit.
        tx.rollback(e);
        throw e;
      }
      try {
        tx.commit();
      } catch (SQLException e) {
        throw store.jdbc.translate("commit", e);
      }
      return done;
    }
  }
}
