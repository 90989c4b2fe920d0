package dev.archlab.inbox.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Reading a relay's row and writing its error, the same for both kinds of claim. */
final class RelayRows {

  /** Longest error kept with a row, the column's length. */
  private static final int MAX_ERROR = 1000;

  private RelayRows() {}

  /** The row at the cursor of a query selecting {@link OutboxStatements#ROW_COLUMNS}. */
  static OutboxRow read(ResultSet rs) throws SQLException {
    return new OutboxRow(
        rs.getLong("seq"),
        rs.getString("message_id"),
        rs.getString("destination"),
        rs.getString("message_key"),
        rs.getBytes("payload"),
        HeaderCodec.decode(rs.getBytes("headers")),
        rs.getInt("attempts"));
  }

  /** {@code error} cut to the column's length. */
  static String cut(String error) {
    return error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR - 3) + "...";
  }
}
