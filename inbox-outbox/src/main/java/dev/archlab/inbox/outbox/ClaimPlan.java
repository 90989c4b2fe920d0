package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows a relay round may publish, read without locks from the front of the unsent rows: each
 * key's head (its earliest unsent row) if it is due, followed by the due rows after it up to the
 * first one that is not. A row whose key's head is in backoff, or which follows a row in backoff,
 * is held back; keyless rows are heads of their own.
 *
 * <p>The unsent rows are read in seq order, a window at a time, so the first row of a key met is
 * its head and no anti-join per row is needed: a round costs a few index range reads however many
 * rows wait behind the same keys. Reading stops once {@code wanted} rows are claimable or the rows
 * run out. A relay reads past rows held back by backoff; it reads nothing when no row at all is due
 * ({@link OutboxStatements#anyDue}).
 *
 * <p>The plan is only a proposal: another relay may claim or publish its rows meanwhile. The claims
 * ({@link RelayClaims}, {@link LeaseClaims}) take a head only if it is still PENDING and due, and
 * the rows after it only through it.
 */
final class ClaimPlan {

  /** A row the round may publish; {@code head} is the seq of its key's head (its own if a head). */
  record Candidate(long seq, long head) {
    boolean isHead() {
      return seq == head;
    }
  }

  /** Where a key stands in the walk: its head, and whether due rows may still follow it. */
  private static final class Chain {
    final long head;
    boolean open;

    Chain(long head, boolean open) {
      this.head = head;
      this.open = open;
    }
  }

  /** A key of one destination; keyless rows have none. */
  private record Key(String destination, String key) {}

  private final List<Candidate> candidates;

  private ClaimPlan(List<Candidate> candidates) {
    this.candidates = candidates;
  }

  /**
   * Reads the plan on {@code c}: up to {@code wanted} claimable rows in seq order, reading windows
   * of {@code window} unsent rows; empty at once if no row is due.
   */
  static ClaimPlan read(Connection c, OutboxStatements sql, int wanted, int window)
      throws SQLException {
    List<Candidate> out = new ArrayList<>();
    if (!anyDue(c, sql)) {
      return new ClaimPlan(out);
    }
    if (sql.beforeClaim() != null) {
      // After the due check, so an idle poll stays one statement.
      try (Statement st = c.createStatement()) {
        st.execute(sql.beforeClaim());
      }
    }
    Map<Key, Chain> chains = new HashMap<>();
    long after = Long.MIN_VALUE;
    try (PreparedStatement ps = c.prepareStatement(sql.window)) {
      while (out.size() < wanted) {
        ps.setLong(1, after);
        ps.setInt(2, window);
        int read = 0;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            read++;
            after = rs.getLong("seq");
            walk(after, rs.getString("destination"), rs, chains, out);
          }
        }
        if (read < window) {
          break;
        }
      }
    }
    return new ClaimPlan(out.size() > wanted ? out.subList(0, wanted) : out);
  }

  private static void walk(
      long seq, String destination, ResultSet rs, Map<Key, Chain> chains, List<Candidate> out)
      throws SQLException {
    String key = rs.getString("message_key");
    boolean due = rs.getInt("due") == 1;
    if (key == null) {
      if (due) {
        out.add(new Candidate(seq, seq));
      }
      return;
    }
    Key k = new Key(destination, key);
    Chain chain = chains.get(k);
    if (chain == null) {
      // The first unsent row of the key met in seq order is its head.
      chains.put(k, new Chain(seq, due));
      if (due) {
        out.add(new Candidate(seq, seq));
      }
    } else if (chain.open) {
      if (due) {
        out.add(new Candidate(seq, chain.head));
      } else {
        chain.open = false; // a row in backoff holds back every later row of its key
      }
    }
  }

  private static boolean anyDue(Connection c, OutboxStatements sql) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.anyDue)) {
      ps.setInt(1, 1);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The claimable rows in seq order; a row's head comes before it. */
  List<Candidate> candidates() {
    return candidates;
  }

  /** The seqs of the heads among the candidates, in seq order. */
  List<Long> heads() {
    List<Long> heads = new ArrayList<>();
    for (Candidate c : candidates) {
      if (c.isHead()) {
        heads.add(c.seq());
      }
    }
    return heads;
  }

  /** How many heads the first {@code limit} candidates have. */
  int headsAmongFirst(int limit) {
    int n = 0;
    for (int i = 0; i < Math.min(limit, candidates.size()); i++) {
      if (candidates.get(i).isHead()) {
        n++;
      }
    }
    return n;
  }
}
