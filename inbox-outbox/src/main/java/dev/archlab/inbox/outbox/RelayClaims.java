package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A relay round's SQL, inside the round's transaction: claiming rows in an order that keeps each
 * key's sequence, and recording what the broker answered.
 *
 * <p>The claim, in three steps on one connection:
 *
 * <ol>
 *   <li>Heads, read without locks: due PENDING rows with no earlier PENDING row of their
 *       destination and key (a few times the batch size, since another relay may hold some).
 *   <li>Those heads locked with {@code FOR UPDATE SKIP LOCKED}, re-checked PENDING and due: a head
 *       another relay holds, or published meanwhile, is skipped.
 *   <li>For each locked head, the later PENDING rows of its key, locked in sequence order, as long
 *       as they are due. No other relay can hold them: to another relay they are not heads while
 *       this head is unsent, and it is unsent until this round commits.
 * </ol>
 *
 * So the rows of one key are claimed by one relay at a time, from the earliest unsent one, and
 * published in sequence order. Locks are held until the round commits after the broker answered: if
 * the relay dies the transaction rolls back and the rows are due again at once.
 */
final class RelayClaims {

  /** Head candidates read per row of the batch, since other relays may hold some of them. */
  private static final int CANDIDATES_PER_ROW = 4;

  /** Most candidates bound in one statement: PostgreSQL takes at most 32 767 parameters. */
  private static final int MAX_CANDIDATES = 30_000;

  private final OutboxStatements sql;

  RelayClaims(OutboxStatements sql) {
    this.sql = sql;
  }

  /** Claims up to {@code limit} rows in the transaction of {@code c}, in publish order. */
  List<OutboxRow> claim(Connection c, int limit) throws SQLException {
    List<Long> candidates = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.dueHeads)) {
      ps.setInt(1, Math.min(limit * CANDIDATES_PER_ROW, MAX_CANDIDATES));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          candidates.add(rs.getLong(1));
        }
      }
    }
    if (candidates.isEmpty()) {
      return List.of();
    }
    List<OutboxRow> heads = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.lockHeads(candidates.size()))) {
      int i = 1;
      for (long seq : candidates) {
        ps.setLong(i++, seq);
      }
      ps.setInt(i, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          heads.add(RelayRows.read(rs));
        }
      }
    }
    List<OutboxRow> out = new ArrayList<>();
    int budget = limit - heads.size();
    for (OutboxRow head : heads) {
      out.add(head);
      if (head.key() != null && budget > 0) {
        List<OutboxRow> tail = lockTail(c, head, budget);
        out.addAll(tail);
        budget -= tail.size();
      }
    }
    return out;
  }

  /** The due rows after {@code head} of its key, up to the first one not due, locked. */
  private List<OutboxRow> lockTail(Connection c, OutboxRow head, int budget) throws SQLException {
    List<OutboxRow> tail = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.lockTail)) {
      ps.setString(1, head.destination());
      ps.setString(2, head.key());
      ps.setLong(3, head.seq());
      ps.setInt(4, budget);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (rs.getInt("due") != 1) {
            break; // a row in backoff holds back every later row of its key
          }
          tail.add(RelayRows.read(rs));
        }
      }
    }
    return tail;
  }

  /**
   * Records the broker's answers in the transaction of {@code c}: SENT rows with the database's
   * time, RETRY rows due again after {@code backoff} of their attempt count, DEAD rows with the
   * reason.
   */
  void record(
      Connection c,
      List<OutboxRow> rows,
      List<PublishResult> results,
      java.util.function.IntFunction<Duration> backoff)
      throws SQLException {
    try (PreparedStatement sent = c.prepareStatement(sql.markSent);
        PreparedStatement retry = c.prepareStatement(sql.markRetry);
        PreparedStatement dead = c.prepareStatement(sql.markDead)) {
      boolean anySent = false;
      boolean anyRetry = false;
      boolean anyDead = false;
      for (int i = 0; i < rows.size(); i++) {
        OutboxRow row = rows.get(i);
        PublishResult result = results.get(i);
        switch (result.kind()) {
          case SENT:
            sent.setLong(1, row.seq());
            sent.addBatch();
            anySent = true;
            break;
          case RETRY:
            retry.setLong(1, backoff.apply(row.attempts() + 1).toNanos() / 1000);
            retry.setString(2, RelayRows.cut(result.error()));
            retry.setLong(3, row.seq());
            retry.addBatch();
            anyRetry = true;
            break;
          default:
            dead.setString(1, RelayRows.cut(result.error()));
            dead.setLong(2, row.seq());
            dead.addBatch();
            anyDead = true;
            break;
        }
      }
      if (anySent) {
        sent.executeBatch();
      }
      if (anyRetry) {
        retry.executeBatch();
      }
      if (anyDead) {
        dead.executeBatch();
      }
    }
  }
}
