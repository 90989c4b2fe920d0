package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.jdbc.TransactionalHandler;
import java.sql.Connection;
import java.util.List;

/**
 * The business effects of a batch of claimed messages, written through one transaction (a JDBC
 * batch insert is the usual body). A normal return lets the store commit every message's writes
 * together with their DONE records. An exception rolls back the whole transaction; {@link
 * BatchConsumer} then isolates the failing messages: a {@link BatchItemFailedException} names them
 * (the others run again together at once), any other exception makes it run the two halves of the
 * batch separately, down to single messages. So the handler may be called again with a part of the
 * batch, in a new transaction; it must write only through the connection it is given.
 *
 * <p>The connection is guarded as for {@link TransactionalHandler}: {@code commit()}, {@code
 * rollback()}, {@code setAutoCommit(…)}, {@code close()} and {@code abort(…)} throw {@link
 * IllegalStateException} and fail the call as a handler exception would; savepoints are allowed.
 */
@FunctionalInterface
public interface TransactionalBatchHandler {

  /**
   * @param messages the messages this instance claimed, each once, in delivery order
   */
  void handle(List<Message> messages, Connection connection) throws Exception;
}
