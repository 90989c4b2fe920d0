package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Attempt;
import dev.archlab.inbox.Message;
import java.sql.Connection;

/**
 * A business effect written through the inbox's transaction. Use only {@code connection} for the
 * writes that must happen exactly once. A normal return lets the store commit the writes together
 * with DONE; an exception rolls them back and the message is retried.
 *
 * <p>The connection is guarded: {@code commit()}, {@code rollback()}, {@code setAutoCommit(…)},
 * {@code close()} and {@code abort(…)} throw {@link IllegalStateException} without touching the
 * transaction, and the attempt fails like any handler failure, even if the handler catches the
 * refusal. Savepoints ({@code setSavepoint}, {@code rollback(Savepoint)}) are allowed. {@code
 * unwrap(Connection.class)} returns the guarded connection; unwrapping to a driver type returns the
 * driver's own object, which is not guarded: never end the transaction through it.
 */
@FunctionalInterface
public interface TransactionalHandler {

  void handle(Message message, Attempt attempt, Connection connection) throws Exception;
}
