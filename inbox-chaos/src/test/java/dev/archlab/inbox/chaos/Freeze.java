package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A consumer process frozen (SIGSTOP) mid-run for longer than its lease, then resumed (SIGCONT),
 * with the evidence built into the run: PostgreSQL only (it reads row locks with {@code SKIP
 * LOCKED} and sessions from {@code pg_stat_activity}).
 *
 * <ol>
 *   <li>A ({@code inbox simulate}, 4 workers, 2 s lease) runs alone. The driver freezes it at a
 *       moment when it holds claims, reads them from the database (A is the only consumer, so every
 *       PROCESSING id is A's) and splits them: <em>fenceable</em> claims (row not locked: A has not
 *       written its completion yet) and <em>locked</em> ones (A's open transaction has already
 *       updated the row). It resumes and freezes again until both kinds exist: A then has an open
 *       transaction on the inbox table, as in issue 12.
 *   <li>B (same ids, 8 workers) and C (another id set, same table) start while A is frozen; both
 *       run {@code createSchemaIfMissing} at start-up.
 *   <li>The driver waits until B has taken over and finished every fenceable id (DONE at attempt 2)
 *       and C has applied ids of its own, both read from the database, and only then resumes A.
 *   <li>A's completions of the fenceable ids must all be refused: its summary's {@code lease lost}
 *       equals their number. Its locked ids were never taken over (B's claim waited on the row
 *       lock), so A commits them at attempt 1. One effect per id everywhere.
 * </ol>
 */
final class Freeze {

  static final int A_WORKERS = 4;

  /** Backstop for each wait: only turns a hang into a failure. */
  static final long BACKSTOP_SECONDS = 120;

  private Freeze() {}

  static void run(Postgres db, Path logs, int messages) throws Exception {
    String fault = "process freeze";
    Figures.forget(db.name(), fault);
    long started = System.nanoTime();
    EndState.reset(db);
    Fleet.migrate(db, logs);
    EndState.createEffectTable(db);
    ChaosRun.Shape a = new ChaosRun.Shape(messages, 1, A_WORKERS, 0.0, "2s", 6, 606, 0);
    ChaosRun.Shape b = new ChaosRun.Shape(messages, 1, 8, 0.0, "2s", 6, 606, 0);
    ChaosRun.Shape c = new ChaosRun.Shape(messages / 3, 1, 2, 0.0, "2s", 6, 707, 0);
    Fleet fleetA = new Fleet(dir(logs, "a"), a.args(db), ChaosRun.plain(1));
    Fleet fleetB = new Fleet(dir(logs, "b"), b.args(db), ChaosRun.plain(1));
    Fleet fleetC = new Fleet(dir(logs, "c"), c.args(db), ChaosRun.plain(1));
    Fleet.Run runA = fleetA.start(0);
    Set<String> fenceable = new HashSet<>();
    Set<String> locked = new HashSet<>();
    boolean frozen = false;
    try {
      long deadline = deadline();
      int tries = 0;
      while (true) {
        assertThat(runA.process.isAlive())
            .as("A still running while the driver looks for a freeze point; %s", runA.output())
            .isTrue();
        assertThat(System.nanoTime() < deadline)
            .as(
                "A frozen with both a fenceable and a locked claim within the backstop (%d tries)",
                tries)
            .isTrue();
        if (processing(db, a).isEmpty()) {
          Thread.sleep(5);
          continue;
        }
        tries++;
        Fleet.signal(runA.process, "STOP");
        frozen = true;
        assertThat(runA.process.isAlive() && !runA.output().contains("verdict:"))
            .as("A frozen mid-run")
            .isTrue();
        Set<String> held = processing(db, a);
        Set<String> unlocked = unlocked(db, a);
        if (!unlocked.isEmpty() && unlocked.size() < held.size()) {
          fenceable.addAll(unlocked);
          locked.addAll(held);
          locked.removeAll(unlocked);
          break;
        }
        Fleet.signal(runA.process, "CONT");
        frozen = false;
        Thread.sleep(20);
      }
      System.out.printf(
          "[chaos] A frozen after %d tries: fenceable %s, locked %s%n", tries, fenceable, locked);

      fleetB.start(0);
      fleetC.start(0);
      long until = deadline();
      while (!(doneAtAttempt(db, a, fenceable, 2) && done(db, c) > 0)) {
        if (System.nanoTime() > until) {
          throw new AssertionError(
              "while A was frozen, B did not finish A's fenceable ids "
                  + fenceable
                  + " or C applied nothing, within the "
                  + BACKSTOP_SECONDS
                  + " s backstop; sessions:\n"
                  + sessions(db));
        }
        Thread.sleep(50);
      }
      Fleet.signal(runA.process, "CONT");
      frozen = false;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      for (Fleet f : List.of(fleetA, fleetB, fleetC)) {
        assertThat(f.awaitAll(end)).as("A, B and C finished (backstop only)").isTrue();
        Fleet.Run r = f.finalRuns().get(0);
        assertThat(r.process.exitValue()).as("exit; output:%n%s", r.output()).isZero();
      }
    } finally {
      if (frozen) {
        Fleet.signal(runA.process, "CONT");
      }
      fleetA.close();
      fleetB.close();
      fleetC.close();
    }

    EndState endAb = EndState.read(db, ChaosRun.CONSUMER, a.ids());
    EndState endC = EndState.read(db, ChaosRun.CONSUMER, c.ids());
    Fleet.Run finalA = fleetA.finalRuns().get(0);
    long leaseLost = finalA.summary("lease lost");
    List<Fleet.Run> all = List.of(finalA, fleetB.finalRuns().get(0), fleetC.finalRuns().get(0));
    Figures figures =
        new Figures(
            fault,
            db.name(),
            Scale.current().label(),
            1,
            3,
            a.messages() + c.messages(),
            2L * (a.messages() * 2L) + c.messages() * 2L,
            all.stream().mapToLong(r -> r.summary("deliveries")).sum(),
            all.stream().mapToLong(r -> r.summary("in-flight")).sum(),
            "SIGSTOP of A holding "
                + fenceable.size()
                + " fenceable + "
                + locked.size()
                + " locked claims; B and C started; SIGCONT after B finished them; A's lease lost "
                + leaseLost,
            1,
            endAb.doubleEffects() + endC.doubleEffects(),
            endAb.lost() + endC.lost(),
            endAb.deadOther() + endC.deadOther(),
            endAb.deadPoison() + endC.deadPoison(),
            all.stream().mapToLong(r -> r.summary("takeovers")).sum(),
            all.stream().mapToLong(r -> r.summary("store errors")).sum(),
            -1,
            (System.nanoTime() - started) / 1e9);
    try {
      ChaosRun.assertEndState(a, endAb);
      ChaosRun.assertEndState(c, endC);
      assertThat(leaseLost)
          .as(
              "A's refused completions: exactly its fenceable claims %s; output:%n%s",
              fenceable, finalA.output())
          .isEqualTo(fenceable.size());
      assertThat(attempts(db, fenceable)).as("attempts of the fenceable ids").containsOnly(2);
      assertThat(attempts(db, locked)).as("attempts of the locked ids").containsOnly(1);
    } catch (Throwable failure) {
      figures.write(Figures.FAILED);
      throw failure;
    }
    figures.write(Figures.PASSED);
  }

  private static Path dir(Path logs, String name) throws java.io.IOException {
    return Files.createDirectories(logs.resolve(name));
  }

  private static long deadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(BACKSTOP_SECONDS);
  }

  /** PROCESSING ids of the shape's set, committed state (MVCC: never waits on A's locks). */
  private static Set<String> processing(Database db, ChaosRun.Shape s) throws SQLException {
    return ids(
        db,
        "SELECT message_id FROM inbox WHERE consumer = ? AND state = 'PROCESSING'"
            + " AND message_id LIKE ?",
        s,
        false);
  }

  /** The PROCESSING ids whose rows no open transaction has locked (A has not completed them). */
  private static Set<String> unlocked(Database db, ChaosRun.Shape s) throws SQLException {
    return ids(
        db,
        "SELECT message_id FROM inbox WHERE consumer = ? AND state = 'PROCESSING'"
            + " AND message_id LIKE ? FOR UPDATE SKIP LOCKED",
        s,
        true);
  }

  private static Set<String> ids(Database db, String sql, ChaosRun.Shape s, boolean rollback)
      throws SQLException {
    try (Connection conn = db.connect()) {
      conn.setAutoCommit(!rollback);
      Set<String> out = new HashSet<>();
      try (PreparedStatement ps = conn.prepareStatement(sql)) {
        ps.setString(1, ChaosRun.CONSUMER);
        ps.setString(2, s.ids().likePattern());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
      }
      if (rollback) {
        conn.rollback(); // only looked: the row locks taken are let go at once
      }
      return out;
    }
  }

  private static boolean doneAtAttempt(Database db, ChaosRun.Shape s, Set<String> ids, int attempts)
      throws SQLException {
    try (Connection conn = db.connect();
        PreparedStatement ps =
            conn.prepareStatement(
                "SELECT state, attempts FROM inbox WHERE consumer = ? AND message_id = ?")) {
      for (String id : ids) {
        ps.setString(1, ChaosRun.CONSUMER);
        ps.setString(2, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next() || !rs.getString(1).equals("DONE") || rs.getInt(2) != attempts) {
            return false;
          }
        }
      }
      return true;
    }
  }

  private static long done(Database db, ChaosRun.Shape s) throws SQLException {
    try (Connection conn = db.connect();
        PreparedStatement ps =
            conn.prepareStatement(
                "SELECT COUNT(*) FROM inbox WHERE consumer = ? AND state = 'DONE'"
                    + " AND message_id LIKE ?")) {
      ps.setString(1, ChaosRun.CONSUMER);
      ps.setString(2, s.ids().likePattern());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static List<Integer> attempts(Database db, Set<String> ids) throws SQLException {
    List<Integer> out = new java.util.ArrayList<>();
    try (Connection conn = db.connect();
        PreparedStatement ps =
            conn.prepareStatement(
                "SELECT attempts FROM inbox WHERE consumer = ? AND message_id = ?")) {
      for (String id : ids) {
        ps.setString(1, ChaosRun.CONSUMER);
        ps.setString(2, id);
        try (ResultSet rs = ps.executeQuery()) {
          out.add(rs.next() ? rs.getInt(1) : -1);
        }
      }
    }
    return out;
  }

  /** What every session of the database was doing: the diagnosis of a stall. */
  private static String sessions(Database db) {
    StringBuilder out = new StringBuilder();
    try (Connection conn = db.connect();
        Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT pid, state, wait_event_type, wait_event, left(query, 120)"
                    + " FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND pid <> pg_backend_pid() ORDER BY state, pid")) {
      while (rs.next()) {
        out.append(
            String.format(
                "  %d %s %s/%s %s%n",
                rs.getInt(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)));
      }
    } catch (SQLException e) {
      out.append("(pg_stat_activity unreadable: ").append(e).append(")");
    }
    return out.toString();
  }
}
