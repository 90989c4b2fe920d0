package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Attempt;
import dev.archlab.inbox.Message;
import java.sql.Connection;

/**
 * A business effect written through the inbox's transaction. Use only {@code connection} for the
 * writes that must happen exactly once; do not commit, roll back or close it. A normal return lets
 * the store commit the writes together with DONE; an exception rolls them back and the message is
 * retried.
 */
@FunctionalInterface
public interface TransactionalHandler {

  void handle(Message message, Attempt attempt, Connection connection) throws Exception;
}
