package dev.archlab.inbox.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples the effect table's row count every 50 ms from outside the consumers, so the driver can
 * tell when work resumes after a fault. It reconnects by itself: the database may be down.
 */
final class EffectWatch implements AutoCloseable {

  private record Sample(long nanos, long count) {}

  private final Database db;
  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stop;

  EffectWatch(Database db) {
    this.db = db;
    this.thread = new Thread(this::loop, "effect-watch");
    thread.setDaemon(true);
    thread.start();
  }

  /** One sample taken now, on a connection of its own (the consumers have ended). */
  void sampleNow() throws SQLException {
    try (Connection c = db.connect()) {
      sample(c);
    }
  }

  private void sample(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + EndState.EFFECTS)) {
      rs.next();
      long n = rs.getLong(1);
      synchronized (samples) {
        samples.add(new Sample(System.nanoTime(), n));
      }
    }
  }

  private void loop() {
    Connection c = null;
    while (!stop) {
      try {
        if (c == null) {
          c = db.connect();
        }
        sample(c);
      } catch (SQLException e) {
        // Down, cut, or the table is not there yet: try again with a new connection.
        closeQuietly(c);
        c = null;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        break;
      }
    }
    closeQuietly(c);
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // already broken
      }
    }
  }

  /**
   * Milliseconds from {@code faultEndNanos} until the count grows past the first count sampled
   * after it; -1 if it never did (e.g. all work was already done). The baseline is taken after the
   * fault, not before: rows that committed while the fault was starting must not pass for recovery.
   * This overstates recovery by up to one sampling interval (50 ms), never understates.
   */
  long recoveryMillis(long faultEndNanos) {
    return recoveryMillis(faultEndNanos, -1);
  }

  /**
   * As {@link #recoveryMillis(long)}, but with {@code baseline} (the count the driver read right
   * after the fault; -1: take the first sample after it) as the count to grow past.
   */
  long recoveryMillis(long faultEndNanos, long knownBaseline) {
    synchronized (samples) {
      long baseline = knownBaseline;
      for (Sample s : samples) {
        if (s.nanos <= faultEndNanos) {
          continue;
        }
        if (baseline < 0) {
          baseline = s.count;
        } else if (s.count > baseline) {
          return (s.nanos - faultEndNanos) / 1_000_000;
        }
      }
      return -1;
    }
  }

  long latest() {
    synchronized (samples) {
      return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).count;
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.interrupt();
    thread.join(5_000);
  }
}
