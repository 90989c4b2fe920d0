package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.Message;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The business write of the guide's broker examples: one {@code orders} row per message. */
public final class Orders {

  private Orders() {}

  /**
   * Inserts the order through the given connection; never commits or closes it.
   *
   * @param connection the inbox's transaction
   * @param message an order event whose payload is the order's text
   * @throws SQLException if the insert failed
   */
  public static void insert(Connection connection, Message message) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement("INSERT INTO orders (id, body) VALUES (?, ?)")) {
      ps.setString(1, message.id());
      ps.setString(2, new String(message.payload(), StandardCharsets.UTF_8));
      ps.executeUpdate();
    }
  }
}
