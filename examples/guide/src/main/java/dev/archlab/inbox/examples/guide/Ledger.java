package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.Message;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The business table the guide's JDBC examples write to: one row per applied payment event. Kept
 * apart so each example shows only its inbox code.
 */
public final class Ledger {

  private Ledger() {}

  /**
   * Creates the {@code ledger} table if it is missing.
   *
   * @param dataSource the database
   * @throws SQLException if the table cannot be created
   */
  public static void createTable(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS ledger ("
              + " event_id VARCHAR(255) NOT NULL,"
              + " amount_cents BIGINT NOT NULL,"
              + " CONSTRAINT ledger_event_uk UNIQUE (event_id))");
    }
  }

  /**
   * Inserts the message's ledger row through the given connection; never commits or closes it.
   *
   * @param connection the inbox's (or the caller's) transaction
   * @param message a payment event whose payload is the amount in cents
   * @throws SQLException if the insert failed
   */
  public static void insert(Connection connection, Message message) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement("INSERT INTO ledger (event_id, amount_cents) VALUES (?, ?)")) {
      ps.setString(1, message.id());
      ps.setLong(2, amountOf(message));
      ps.executeUpdate();
    }
  }

  /**
   * The payment's amount.
   *
   * @param message a payment event whose payload is the amount in cents, as decimal text
   * @return the amount in cents
   * @throws NumberFormatException if the payload is not a number
   */
  public static long amountOf(Message message) {
    return Long.parseLong(new String(message.payload(), StandardCharsets.UTF_8));
  }

  /**
   * Counts the ledger rows.
   *
   * @param dataSource the database
   * @return how many rows the table holds
   * @throws SQLException if the count failed
   */
  public static long rows(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM ledger")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
