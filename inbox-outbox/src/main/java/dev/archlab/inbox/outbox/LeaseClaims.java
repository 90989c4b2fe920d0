package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A relay round on a database without {@code SKIP LOCKED} (SQLite, H2): rows are claimed with a
 * lease on the database clock instead of a held lock, and published outside any transaction, so a
 * one-writer database is never held for a broker's round trip.
 *
 * <p>The claim, in one short transaction: the heads (as in {@link RelayClaims}), and for each head
 * the later due rows of its key; each row is taken by a conditional UPDATE that counts the attempt
 * and moves its due time past the lease, and only if nobody took it since it was read (same attempt
 * count, still PENDING and due). A head taken by someone else drops its key; a tail row stops it.
 * While the lease runs the rows are not due, so no other relay takes them or any later row of their
 * keys. The marks after the broker's answer are fenced by the attempt count the claim wrote: a
 * relay whose lease ran out and whose rows were claimed again changes nothing. It may have
 * published them meanwhile; the receiving inbox deduplicates, and since every relay publishes a
 * key's rows in order from its earliest unsent one, first deliveries stay in order.
 */
final class LeaseClaims {

  private final OutboxStatements sql;

  LeaseClaims(OutboxStatements sql) {
    this.sql = sql;
  }

  /**
   * Claims up to {@code limit} rows for {@code lease} and commits; returns them with the attempt
   * count the claim wrote (the fencing token), in publish order.
   */
  List<OutboxRow> claim(Connection c, int limit, Duration lease) throws SQLException {
    List<Long> heads = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.dueHeads)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          heads.add(rs.getLong(1));
        }
      }
    }
    List<OutboxRow> out = new ArrayList<>();
    long micros = lease.toNanos() / 1000;
    try (PreparedStatement read = c.prepareStatement(sql.lockHeads(1));
        PreparedStatement tail = c.prepareStatement(sql.lockTail);
        PreparedStatement take = c.prepareStatement(sql.leaseClaim)) {
      for (long seq : heads) {
        if (out.size() >= limit) {
          break;
        }
        read.setLong(1, seq);
        read.setInt(2, 1);
        OutboxRow head = null;
        try (ResultSet rs = read.executeQuery()) {
          if (rs.next()) {
            head = RelayRows.read(rs);
          }
        }
        if (head == null || !take(take, head, micros)) {
          continue; // published or taken since it was read
        }
        out.add(claimed(head));
        if (head.key() == null) {
          continue;
        }
        tail.setString(1, head.destination());
        tail.setString(2, head.key());
        tail.setLong(3, head.seq());
        tail.setInt(4, limit - out.size());
        List<OutboxRow> candidates = new ArrayList<>();
        try (ResultSet rs = tail.executeQuery()) {
          while (rs.next() && rs.getInt("due") == 1) {
            candidates.add(RelayRows.read(rs));
          }
        }
        for (OutboxRow row : candidates) {
          if (out.size() >= limit || !take(take, row, micros)) {
            break;
          }
          out.add(claimed(row));
        }
      }
    }
    return out;
  }

  private static boolean take(PreparedStatement take, OutboxRow row, long micros)
      throws SQLException {
    take.setLong(1, micros);
    take.setLong(2, row.seq());
    take.setInt(3, row.attempts());
    return take.executeUpdate() == 1;
  }

  /** The row as claimed: its attempt count is the one the claim wrote. */
  private static OutboxRow claimed(OutboxRow r) {
    return new OutboxRow(
        r.seq(), r.id(), r.destination(), r.key(), r.payload(), r.headers(), r.attempts() + 1);
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
