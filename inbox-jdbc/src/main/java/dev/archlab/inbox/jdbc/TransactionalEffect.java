package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.jdbc.internal.GuardedConnection;
import dev.archlab.inbox.jdbc.internal.LocalTransaction;
import dev.archlab.inbox.store.ClaimedEffect;
import dev.archlab.inbox.store.ClaimedRun;
import dev.archlab.inbox.store.InboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

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
 * In the caller's transaction on a database with one writer at a time, the whole delivery is
 * written there, the claim included ({@link #deliveryStore}); a handler failure is then rolled back
 * to a savepoint taken after the claim, so that the failure recorded next commits alone.
 */
public final class TransactionalEffect implements ClaimedEffect {

  private final JdbcInboxStore store;
  private final TransactionalHandler handler;
  private final ConnectionSupplier callerConnection;
  private final CallerTransactionStore callersView;

  TransactionalEffect(
      JdbcInboxStore store, TransactionalHandler handler, ConnectionSupplier callerConnection) {
    this.store = store;
    this.handler = java.util.Objects.requireNonNull(handler, "handler");
    this.callerConnection = callerConnection;
    this.callersView =
        callerConnection == null ? null : new CallerTransactionStore(store, callerConnection);
  }

  /**
   * The caller's transaction view of the store when this delivery must write only there (see {@link
   * #bindsToCallersTransaction}); otherwise {@code consumerStore}.
   */
  @Override
  public InboxStore deliveryStore(InboxStore consumerStore) {
    if (callerConnection == null || consumerStore != store) {
      return consumerStore;
    }
    Connection c;
    try {
      c = callerConnection.get();
    } catch (SQLException e) {
      throw store.jdbc.translate("begin (getting the caller's connection)", e);
    }
    return bindsToCallersTransaction(c) ? callersView : consumerStore;
  }

  /**
   * Whether the whole delivery runs in the caller's open transaction: on a database with one writer
   * at a time, a connection of the store's own would wait for the write lock the caller's
   * transaction holds. With auto-commit on there is no open transaction to wait for.
   */
  private boolean bindsToCallersTransaction(Connection c) {
    if (!store.dialect().oneWriterAtATime()) {
      return false;
    }
    try {
      return !c.getAutoCommit();
    } catch (SQLException e) {
      throw store.jdbc.translate("read the caller's auto-commit", e);
    }
  }

  @Override
  public InboxRecord runAndComplete(ClaimedRun run) throws Exception {
    if (callerConnection != null) {
      Connection c = callerConnection.get();
      GuardedConnection guard = GuardedConnection.aroundCallers(c);
      // When the claim is in the caller's transaction, a failure is recorded there too: the
      // handler's writes are undone first, so that committing the failure commits nothing else.
      Savepoint beforeHandler = bindsToCallersTransaction(c) ? c.setSavepoint() : null;
      try {
        handler.handle(run.message(), run.attempt(), guard.connection());
        guard.throwIfRefused();
      } catch (Exception e) {
        if (beforeHandler != null) {
          undoHandlerWrites(c, beforeHandler, e);
        }
        throw e;
      }
      Claim claim = run.handlerReturned();
      InboxRecord done = store.complete(c, claim, run.keptResult());
      if (beforeHandler != null) {
        // Several deliveries may share one caller's transaction: leave no savepoint behind.
        try {
          c.releaseSavepoint(beforeHandler);
        } catch (SQLException e) {
          throw store.jdbc.translate("release the savepoint taken before the handler", e);
        }
      }
      return done;
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
        done = store.rows.completeOn(c, store.jdbc.statementsFor(c), claim, run.keptResult());
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

  /**
   * Rolls the caller's transaction back to {@code beforeHandler}, keeping the claim. If that fails
   * the failure is added to the handler's exception: recording the failed attempt then runs on a
   * transaction in an unknown state, and the caller must roll back.
   */
  private static void undoHandlerWrites(Connection c, Savepoint beforeHandler, Exception failure) {
    try {
      c.rollback(beforeHandler);
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }
}
