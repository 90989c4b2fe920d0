package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * A relay round on a database without {@code SKIP LOCKED} (SQLite, H2): rows are claimed with a
 * lease on the database clock instead of a held lock, and published outside any transaction, so a
 * one-writer database is never held for a broker's round trip.
 *
 * <p>The claim, in one short transaction: the {@link ClaimPlan}, then each planned row in seq order
 * taken by a conditional UPDATE that counts the attempt and moves its due time past the lease, only
 * if it is still PENDING and due (nobody took it since it was read). A head taken by someone else
 * drops its key; a later row taken by someone else ends its key's run. The rows are then read back
 * in the same transaction, with the attempt count the claim wrote. While the lease runs the rows
 * are not due, so no other relay takes them or any later row of their keys. The marks after the
 * broker's answer are fenced by that attempt count: a relay whose lease ran out and whose rows were
 * claimed again changes nothing. It may have published them meanwhile; the receiving inbox
 * deduplicates, and since every relay publishes a key's rows in order from its earliest unsent one,
 * first deliveries stay in order.
 */
final class LeaseClaims {

  private final OutboxStatements sql;

  LeaseClaims(OutboxStatements sql) {
    this.sql = sql;
  }

  /**
   * Claims up to {@code limit} rows for {@code lease} in the transaction of {@code c}; returns them
   * with the attempt count the claim wrote (the fencing token), in publish order.
   */
  List<OutboxRow> claim(Connection c, int limit, Duration lease) throws SQLException {
    int wanted = Math.min(limit * RelayClaims.CANDIDATES_PER_ROW, RelayClaims.MAX_CANDIDATES);
    ClaimPlan plan = ClaimPlan.read(c, sql, wanted, wanted);
    List<Long> taken = new ArrayList<>();
    Set<Long> cut = new HashSet<>();
    long micros = lease.toNanos() / 1000;
    try (PreparedStatement take = c.prepareStatement(sql.leaseClaim)) {
      for (ClaimPlan.Candidate candidate : plan.candidates()) {
        if (taken.size() >= limit) {
          break;
        }
        if (cut.contains(candidate.head())) {
          continue;
        }
        take.setLong(1, micros);
        take.setLong(2, candidate.seq());
        if (take.executeUpdate() == 1) {
          taken.add(candidate.seq());
        } else {
          cut.add(candidate.head()); // published or taken since the plan was read
        }
      }
    }
    if (taken.isEmpty()) {
      return List.of();
    }
    List<OutboxRow> out = new ArrayList<>();
    try (PreparedStatement read = c.prepareStatement(sql.rowsIn(taken.size()))) {
      RelayRows.bindSeqs(read, taken);
      try (ResultSet rs = read.executeQuery()) {
        while (rs.next()) {
          out.add(RelayRows.read(rs));
        }
      }
    }
    return out;
  }

  /**
   * Records the broker's answers, fenced by each row's claimed attempt count; returns how many rows
   * were still this relay's.
   */
  int record(
      Connection c,
      List<OutboxRow> rows,
      List<PublishResult> results,
      IntFunction<Duration> backoff)
      throws SQLException {
    int recorded = 0;
    try (PreparedStatement sent = c.prepareStatement(sql.leaseSent);
        PreparedStatement retry = c.prepareStatement(sql.leaseRetry);
        PreparedStatement dead = c.prepareStatement(sql.leaseDead)) {
      for (int i = 0; i < rows.size(); i++) {
        OutboxRow row = rows.get(i);
        PublishResult result = results.get(i);
        PreparedStatement ps;
        int p = 1;
        switch (result.kind()) {
          case SENT:
            ps = sent;
            break;
          case RETRY:
            ps = retry;
            ps.setLong(p++, backoff.apply(row.attempts()).toNanos() / 1000);
            ps.setString(p++, RelayRows.cut(result.error()));
            break;
          default:
            ps = dead;
            ps.setString(p++, RelayRows.cut(result.error()));
            break;
        }
        ps.setLong(p++, row.seq());
        ps.setInt(p, row.attempts());
        recorded += ps.executeUpdate();
      }
    }
    return recorded;
  }
}
