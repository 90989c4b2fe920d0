package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A relay round's SQL, inside the round's transaction: claiming rows in an order that keeps each
 * key's sequence, and recording what the broker answered.
 *
 * <p>The claim, in three steps on one connection:
 *
 * <ol>
 *   <li>The {@link ClaimPlan}, read without locks: each key's due head and the due rows after it, a
 *       few times the batch size of them, since another relay may hold some.
 *   <li>Heads locked with {@code FOR UPDATE SKIP LOCKED}, as many as the first {@code limit}
 *       candidates need, re-checked PENDING and due: a head another relay holds, or published
 *       meanwhile, is skipped and a later one taken instead.
 *   <li>The candidates after the locked heads, locked with one {@code FOR UPDATE}, up to the batch
 *       size. No other relay can hold them: to another relay they are not heads while their head is
 *       unsent, and it is unsent until this round commits. One that is no longer PENDING ends its
 *       key's run.
 * </ol>
 *
 * So the rows of one key are claimed by one relay at a time, from the earliest unsent one, and
 * published in sequence order. Locks are held until the round commits after the broker answered: if
 * the relay dies the transaction rolls back and the rows are due again at once.
 */
final class RelayClaims {

  /** Candidates planned per row of the batch, since other relays may hold some of them. */
  static final int CANDIDATES_PER_ROW = 4;

  /** Most seqs bound in one statement: PostgreSQL takes at most 32 767 parameters. */
  static final int MAX_CANDIDATES = 30_000;

  private final OutboxStatements sql;

  RelayClaims(OutboxStatements sql) {
    this.sql = sql;
  }

  /** Claims up to {@code limit} rows in the transaction of {@code c}, in publish order. */
  List<OutboxRow> claim(Connection c, int limit) throws SQLException {
    int wanted = Math.min(limit * CANDIDATES_PER_ROW, MAX_CANDIDATES);
    ClaimPlan plan = ClaimPlan.read(c, sql, wanted, wanted);
    List<Long> heads = plan.heads();
    if (heads.isEmpty()) {
      return List.of();
    }
    Map<Long, OutboxRow> locked = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql.lockHeads(heads.size()))) {
      ps.setInt(RelayRows.bindSeqs(ps, heads), Math.max(plan.headsAmongFirst(limit), 1));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          OutboxRow row = RelayRows.read(rs);
          locked.put(row.seq(), row);
        }
      }
    }
    // The rows after the locked heads, in seq order, up to the batch size with the heads.
    List<Long> followers = new ArrayList<>();
    int budget = limit - locked.size();
    for (ClaimPlan.Candidate candidate : plan.candidates()) {
      if (budget == 0) {
        break;
      }
      if (!candidate.isHead() && locked.containsKey(candidate.head())) {
        followers.add(candidate.seq());
        budget--;
      }
    }
    if (!followers.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(sql.rowsIn(followers.size()))) {
        RelayRows.bindSeqs(ps, followers);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            OutboxRow row = RelayRows.read(rs);
            locked.put(row.seq(), row);
          }
        }
      }
    }
    return inKeyOrder(plan, locked);
  }

  /**
   * The locked rows in seq order, each key's run cut at its first planned row that was not locked
   * (published meanwhile, or beyond the batch).
   */
  static List<OutboxRow> inKeyOrder(ClaimPlan plan, Map<Long, OutboxRow> locked) {
    List<OutboxRow> out = new ArrayList<>();
    Set<Long> cut = new HashSet<>();
    for (ClaimPlan.Candidate candidate : plan.candidates()) {
      OutboxRow row = locked.get(candidate.seq());
      if (cut.contains(candidate.head())) {
        continue;
      }
      if (row == null) {
        cut.add(candidate.head());
      } else {
        out.add(row);
      }
    }
    return out;
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
    List<Long> sent = new ArrayList<>();
    try (PreparedStatement retry = c.prepareStatement(sql.markRetry);
        PreparedStatement dead = c.prepareStatement(sql.markDead)) {
      boolean anyRetry = false;
      boolean anyDead = false;
      for (int i = 0; i < rows.size(); i++) {
        OutboxRow row = rows.get(i);
        PublishResult result = results.get(i);
        switch (result.kind()) {
          case SENT:
            sent.add(row.seq());
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
      if (anyRetry) {
        retry.executeBatch();
      }
      if (anyDead) {
        dead.executeBatch();
      }
    }
    if (!sent.isEmpty()) {
      // One statement for the round's SENT rows: the common case costs one round trip.
      try (PreparedStatement ps = c.prepareStatement(sql.markSent(sent.size()))) {
        RelayRows.bindSeqs(ps, sent);
        ps.executeUpdate();
      }
    }
  }
}
