package dev.archlab.inbox.outbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

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

  /**
   * Binds {@code seqs} to the first parameters of {@code ps}, in order.
   *
   * @return the index of the next parameter
   */
  static int bindSeqs(PreparedStatement ps, List<Long> seqs) throws SQLException {
    int i = 1;
    for (long seq : seqs) {
      ps.setLong(i++, seq);
    }
    return i;
  }

  /** {@code error} cut to the column's length. */
  static String cut(String error) {
    return error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR - 3) + "...";
  }
}
