package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.sql.SQLException;

/** Writes outbox rows in one committed transaction, for the relay tests. */
final class RelayTestSupport {

  private RelayTestSupport() {}

  static void send(OutboxDatabase db, Outbox outbox, OutboxMessage... messages)
      throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (OutboxMessage m : messages) {
        outbox.send(c, m);
      }
      c.commit();
    }
  }
}
