package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * Holds every consumer process at its first statement on the inbox table until all of them are
 * there, then lets them go at the same instant: PostgreSQL only. JVM start-up on a loaded machine
 * puts processes seconds apart, and a process that starts late behind identical deliveries only
 * ever sees DUPLICATE; behind the gate they start together and race on the same ids.
 *
 * <p>The gate is an {@code ACCESS EXCLUSIVE} lock on the table, taken in an open transaction before
 * the fleet starts (after the schema is deployed) and released by committing. Nothing of the
 * consumers' can run around it: the lock conflicts with every lock any statement on the table
 * takes, including the {@code CREATE INDEX IF NOT EXISTS} of their schema check.
 */
final class StartGate implements AutoCloseable {

  private final Connection c;
  private final String table;
  private boolean open;
  private int waited;

  private StartGate(Connection c, String table) {
    this.c = c;
    this.table = table;
  }

  /** Closes the gate on {@code table}; call before the fleet starts. */
  static StartGate close(Database db, String table) throws SQLException {
    Connection c = db.connect();
    try {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
      }
      return new StartGate(c, table);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Waits (at most 60 s) until at least one session per process of {@code fleet} waits on the lock,
   * then opens the gate. Fails if they never all got there: the run would not be the race it claims
   * to be.
   */
  void openWhenAllWait(Fleet fleet) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int n = 0;
    while (System.nanoTime() < deadline && fleet.aliveSlots().size() == fleet.size()) {
      n = waiting();
      if (n >= fleet.size()) {
        break;
      }
      Thread.sleep(20);
    }
    waited = n;
    openNow();
    assertThat(n)
        .as(
            "sessions waiting at the start gate on %s (one per consumer process expected; %d of %d"
                + " processes alive)",
            table, fleet.aliveSlots().size(), fleet.size())
        .isGreaterThanOrEqualTo(fleet.size());
  }

  /** Sessions other than this one waiting for a lock on the table. */
  private int waiting() throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted AND relation = '"
                    + table
                    + "'::regclass")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** How many sessions were waiting when the gate opened. */
  int waited() {
    return waited;
  }

  private void openNow() throws SQLException {
    if (!open) {
      open = true;
      c.commit();
    }
  }

  /** Opens the gate if still closed (a failed run must not leave the consumers blocked). */
  @Override
  public void close() throws SQLException {
    try {
      if (!open) {
        open = true;
        c.rollback();
      }
    } finally {
      c.close();
    }
  }
}
