package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The batch completion of a dialect that cannot update and return many rows in one statement: lock
 * the claims' rows, decide which claims are still current, update exactly those. Runs inside the
 * caller's transaction.
 */
final class LockingBatchComplete {

  private LockingBatchComplete() {}

  /** See {@link Statements#batchComplete}. */
  static List<InboxRecord> complete(Statements s, Connection c, List<Claim> claims)
      throws SQLException {
    String consumer = claims.get(0).consumer();
    List<String> ids = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      ids.add(claim.messageId());
    }
    Map<String, InboxRecord> rows = new HashMap<>();
    Instant now = null;
    try (PreparedStatement ps =
        c.prepareStatement(s.selectManyWithNow(ids.size()) + " FOR UPDATE")) {
      s.bindKeys(ps, 1, consumer, ids);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          InboxRecord r = s.readRecord(rs);
          rows.put(r.messageId(), r);
          now = s.dialect.getInstant(rs, "db_now");
        }
      }
    }
    List<InboxRecord> current = new ArrayList<>();
    for (Claim claim : claims) {
      InboxRecord r = rows.get(claim.messageId());
      if (r != null
          && r.state() == RecordState.PROCESSING
          && r.attempts() == claim.fencingToken()) {
        current.add(r);
      }
    }
    if (current.isEmpty()) {
      return List.of();
    }
    String update =
        "UPDATE "
            + s.table
            + " SET state = 'DONE', lease_until = NULL, updated_at = ?, result = NULL"
            + " WHERE consumer = ?"
            + Statements.STILL_PROCESSING
            + " AND (message_id, attempts) IN ("
            + Statements.placeholders(current.size(), "(?, ?)")
            + ")";
    try (PreparedStatement ps = c.prepareStatement(update)) {
      s.dialect.setInstant(ps, 1, now);
      ps.setString(2, consumer);
      int i = 3;
      for (InboxRecord r : current) {
        ps.setString(i++, r.messageId());
        ps.setInt(i++, r.attempts());
      }
      int updated = ps.executeUpdate();
      if (updated != current.size()) {
        // The rows are locked by this transaction; anything else means the lock did not hold.
        throw new SQLException(
            "batch complete updated " + updated + " of " + current.size() + " locked rows");
      }
    }
    List<InboxRecord> done = new ArrayList<>(current.size());
    for (InboxRecord r : current) {
      done.add(r.transitioned(RecordState.DONE, r.attempts(), null, now, r.lastError()));
    }
    return done;
  }
}
