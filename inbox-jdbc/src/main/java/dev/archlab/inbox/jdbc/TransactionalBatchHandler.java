package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Message;
import java.sql.Connection;
import java.util.List;

/**
 * The business effects of a batch of claimed messages, written through one transaction (a JDBC
 * batch insert is the usual body). Do not commit, roll back or close the connection. A normal
 * return lets the store commit every message's writes together with their DONE records; an
 * exception rolls back the whole batch and each message is retried.
 */
@FunctionalInterface
public interface TransactionalBatchHandler {

  /**
   * @param messages the messages this instance claimed, each once, in delivery order
   */
  void handle(List<Message> messages, Connection connection) throws Exception;
}
