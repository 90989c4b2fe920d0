package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults on one real PostgreSQL server shared by K consumer JVMs: SIGKILLed consumers, a server
 * restart, cut connections, skewed host clocks, and sustained load. Each test ends by itself and
 * fails on any double effect, lost message or unexpected DEAD.
 */
@Timeout(900) // backstop only; every wait inside is bounded far below it at the short scale
class PostgresChaosTest {

  static final Scale SCALE = Scale.current();
  static Postgres db;

  @TempDir Path logs;

  @BeforeAll
  static void startServer() {
    db = new Postgres();
  }

  @AfterAll
  static void stopServer() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void sigkilledConsumersRestartedAtRandomApplyEveryIdOnce() throws Exception {
    EndState.reset(db);
    ChaosRun.Shape shape = new ChaosRun.Shape(SCALE.messages, 2, 2, 0.01, "1s", 6, 101, 5);
    Random random = new Random(101);
    ChaosRun.run(
        "process kill",
        db,
        shape,
        ChaosRun.plain(3),
        logs,
        1,
        (fleet, watch, injected) -> {
          injected.description = "SIGKILL + restart";
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, 1, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline) {
            // A random moment: anywhere from mid-claim to mid-commit.
            Thread.sleep(500 + random.nextInt(2000));
            if (!fleet.killAndRestartOne(random)) {
              break; // every consumer finished on its own
            }
            injected.ended();
          }
        });
  }

  @Test
  void serverRestartMidRunIsSurvivedByEveryConsumer() throws Exception {
    EndState.reset(db);
    ChaosRun.Shape shape = new ChaosRun.Shape(SCALE.messages, 2, 2, 0.0, "2s", 6, 202, 5);
    ChaosRun.run(
        "server restart",
        db,
        shape,
        ChaosRun.plain(3),
        logs,
        1,
        (fleet, watch, injected) -> {
          injected.description = "pg_ctl stop -m fast, 2 s down, start";
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, SCALE.messages / 5, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline && !fleet.aliveSlots().isEmpty()) {
            db.restart(Duration.ofSeconds(2));
            injected.ended();
            Thread.sleep(6_000);
          }
        });
  }

  @Test
  void terminatedBackendsAreReconnectedByEveryConsumer() throws Exception {
    EndState.reset(db);
    ChaosRun.Shape shape = new ChaosRun.Shape(SCALE.messages, 2, 2, 0.0, "2s", 6, 303, 5);
    long[] backends = {0};
    ChaosRun.run(
        "connection cut",
        db,
        shape,
        ChaosRun.plain(3),
        logs,
        1,
        (fleet, watch, injected) -> {
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, SCALE.messages / 10, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline && !fleet.aliveSlots().isEmpty()) {
            backends[0] += terminateBackends();
            injected.ended();
            Thread.sleep(1_500);
          }
          injected.description = "pg_terminate_backend of all (" + backends[0] + " backends)";
        });
    assertThat(backends[0]).as("backends cut").isPositive();
  }

  /** Cuts every other session of the database, as a failover or an admin would. */
  private static long terminateBackends() throws Exception {
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE pid <> pg_backend_pid() AND datname = current_database()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void skewedHostClocksStealNoLiveLease() throws Exception {
    EndState.reset(db);
    // Leases of 10 s against clocks 5 minutes apart: if any lease were judged by a host clock,
    // the +5m process would see every live lease of the others as long expired and take it over.
    ChaosRun.Shape shape = new ChaosRun.Shape(SCALE.messages, 3, 2, 0.0, "10s", 6, 404, 0);
    List<List<String>> offsets =
        List.of(
            List.of("--clock-offset", "-5m"),
            List.of("--clock-offset", "0s"),
            List.of("--clock-offset", "5m"));
    ChaosRun.Result r =
        ChaosRun.run(
            "clock skew",
            db,
            shape,
            offsets,
            logs,
            1,
            (fleet, watch, injected) -> injected.description = "JVM clocks -5m, 0, +5m");
    assertThat(r.figures().takeovers())
        .as("takeovers with no crash at all: each one would be a stolen live lease")
        .isZero();
    assertThat(r.figures().consumeCalls())
        .as("the processes really raced on the same ids")
        .isGreaterThan(3L * SCALE.messages);
  }

  @Test
  void sustainedLoadHasNoDoubleEffect() throws Exception {
    Load.run(db, logs, SCALE);
  }
}
