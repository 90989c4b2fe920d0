package dev.archlab.inbox.rabbitmq;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The business table: one row per applied effect, deliberately without a unique key so that a
 * second effect of one message shows as a second row.
 */
final class Effects {

  static final String TABLE = "rabbit_effect";

  private Effects() {}

  static synchronized void createTable(DataSource ds) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (consumer VARCHAR(128) NOT NULL, message_id VARCHAR(255) NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static void insert(Connection c, String consumer, String messageId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + TABLE + " (consumer, message_id) VALUES (?, ?)")) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      ps.executeUpdate();
    }
  }

  /** Rows per message id of one consumer. */
  static Map<String, Integer> counts(DataSource ds, String consumer) {
    Map<String, Integer> out = new HashMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT message_id, COUNT(*) FROM " + TABLE + " WHERE consumer = ? GROUP BY 1")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getInt(2));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }
}
