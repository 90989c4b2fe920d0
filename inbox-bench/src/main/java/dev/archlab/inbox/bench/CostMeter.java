package dev.archlab.inbox.bench;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a window of work cost, beside its throughput: CPU time of this JVM and of the PostgreSQL
 * server (the postmaster, every live backend, and the backends that exited and were reaped), and
 * the server's commits and statements. On a machine where the bench and the database share two
 * cores, CPU per message is what bounds throughput once enough connections are busy, so these are
 * the numbers that say why one system outruns another.
 *
 * <p>Reads {@code /proc}; where it is not readable (not Linux) the CPU figures are NaN. Statements
 * are counted only when {@code pg_stat_statements} is loaded ({@link
 * BenchDatabase#start(boolean)}), else -1. Commits come from {@code pg_stat_database}, which a
 * backend reports at the latest when it exits: read a {@link Reading} after the pool's connections
 * are closed (see {@link #read}).
 */
final class CostMeter {

  /** Cumulative counters at one moment. */
  record Reading(double jvmCpuSeconds, double serverCpuSeconds, long commits, long statements) {}

  /** The cost of one window, per message. */
  record Cost(
      long messages,
      double jvmMicrosPerMessage,
      double serverMicrosPerMessage,
      double commitsPerMessage,
      double statementsPerMessage) {}

  private final BenchDatabase db;
  private final long postmasterPid;

  CostMeter(BenchDatabase db) throws SQLException {
    this.db = db;
    this.postmasterPid = postmasterPid(db);
  }

  /** The PostgreSQL server's process (the postmaster), or -1 where it could not be found. */
  long serverPid() {
    return postmasterPid;
  }

  /**
   * The counters now. Waits (polling, bounded by one minute) until no other backend of the server
   * is connected, so that every backend of the window has exited and reported its commits.
   */
  Reading read() throws SQLException {
    try (Connection c = db.admin().getConnection();
        Statement st = c.createStatement()) {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (System.nanoTime() < deadline) {
        try (ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
                    + " AND pid <> pg_backend_pid()")) {
          rs.next();
          if (rs.getLong(1) == 0) {
            break;
          }
        }
        try {
          Thread.sleep(20); // polling the server's view, not a guess at how long exits take
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted while waiting for backends to exit", e);
        }
      }
      st.execute("SELECT pg_stat_clear_snapshot()");
      long commits;
      try (ResultSet rs = st.executeQuery("SELECT sum(xact_commit) FROM pg_stat_database")) {
        rs.next();
        commits = rs.getLong(1);
      }
      long statements = -1;
      try (ResultSet rs =
          st.executeQuery(
              "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")) {
        rs.next();
        if (rs.getLong(1) > 0) {
          try (ResultSet calls =
              st.executeQuery("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements")) {
            calls.next();
            statements = calls.getLong(1);
          }
        }
      }
      return new Reading(jvmCpuSeconds(), serverCpuSeconds(), commits, statements);
    }
  }

  static Cost between(Reading from, Reading to, long messages) {
    double n = Math.max(1, messages);
    return new Cost(
        messages,
        (to.jvmCpuSeconds() - from.jvmCpuSeconds()) * 1e6 / n,
        (to.serverCpuSeconds() - from.serverCpuSeconds()) * 1e6 / n,
        (to.commits() - from.commits()) / n,
        from.statements() < 0 ? -1 : (to.statements() - from.statements()) / n);
  }

  private static double jvmCpuSeconds() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime() / 1e9;
    }
    return Double.NaN;
  }

  /** The postmaster's own and reaped children's time, plus every live child's. */
  private double serverCpuSeconds() {
    return postmasterPid < 0 ? Double.NaN : ProcessCpu.treeSeconds(postmasterPid);
  }

  /** A backend's parent is the postmaster. */
  private static long postmasterPid(BenchDatabase db) throws SQLException {
    try (Connection c = db.admin().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      long[] backend = ProcessCpu.stat(rs.getLong(1));
      return backend == null ? -1 : backend[0];
    }
  }
}
