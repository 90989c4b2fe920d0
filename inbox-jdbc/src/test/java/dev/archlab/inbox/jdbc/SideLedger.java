package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The business ledger of the tests that play one sequence on two sides (a batch form and single
 * calls) and compare them: one table, a row per effect, tagged with its side; and the short text
 * forms of outcomes and records those tests compare.
 */
final class SideLedger {

  private final TestDatabase database;
  private final String table;

  /** The ledger {@code table} on {@code database}, created if missing and emptied. */
  SideLedger(TestDatabase database, String table) throws SQLException {
    this.database = database;
    this.table = table;
    try {
      database.execute("CREATE TABLE " + table + " (side VARCHAR(8), message_id VARCHAR(64))");
    } catch (SQLException exists) {
      clear();
    }
  }

  void clear() throws SQLException {
    database.execute("DELETE FROM " + table);
  }

  /** Books {@code m}'s effect for {@code side} in the caller's transaction. */
  void book(Connection c, String side, Message m) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + table + " (side, message_id) VALUES (?, ?)")) {
      ps.setString(1, side);
      ps.setString(2, m.id());
      ps.executeUpdate();
    }
  }

  /** How many effects {@code side} booked for {@code id}. */
  long rows(String side, String id) throws SQLException {
    return database.count(
        "SELECT COUNT(*) FROM "
            + table
            + " WHERE side = '"
            + side
            + "' AND message_id = '"
            + id
            + "'");
  }

  /** A record as the comparison sees it: state, attempts, whether it has an error; or absent. */
  static String describe(Optional<InboxRecord> record) {
    return record
        .map(r -> r.state() + "/" + r.attempts() + "/" + (r.lastError() != null))
        .orElse("absent");
  }

  /** An outcome as the comparison sees it: id, status and attempts. */
  static String describe(Outcome o) {
    return o.messageId() + ":" + o.status() + "/" + o.attempts();
  }
}
