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
        ChaosRun.Faults.KILLS,
        (fleet, watch, injected) -> {
          injected.description = "SIGKILL + restart";
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, 1, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline) {
            // A random moment: anywhere from mid-claim to mid-commit.
            Thread.sleep(500 + random.nextInt(2000));
            Fleet.Kill kill = fleet.killAndRestartOne(random);
            if (kill == null) {
              break; // every consumer finished on its own
            }
            if (kill.hitRunningProcess()) {
              injected.ended(true); // a victim that had just finished by itself is no fault
            }
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
        ChaosRun.Faults.OUTAGES,
        (fleet, watch, injected) -> {
          injected.description = "pg_ctl stop -m fast, 2 s down, start";
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, SCALE.messages / 5, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline && !fleet.aliveSlots().isEmpty()) {
            db.restart(Duration.ofSeconds(2));
            injected.ended(!fleet.aliveSlots().isEmpty());
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
        ChaosRun.Faults.OUTAGES,
        (fleet, watch, injected) -> {
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, SCALE.messages / 10, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline && !fleet.aliveSlots().isEmpty()) {
            long cut = terminateBackends();
            backends[0] += cut;
            injected.ended(cut > 0 && !fleet.aliveSlots().isEmpty());
            Thread.sleep(1_500);
          }
          injected.description = "pg_terminate_backend of all (" + backends[0] + " backends)";
        });
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

  /**
   * The fewest IN_FLIGHT answers each clock-skew process must report: one per this many ids. With
   * the identical order behind the start gate each one reports about 0.2 to 0.45 per id (600 to
   * 1,400 of 3,000 in the short profile, on two shared cores); a process that fell behind the
   * others for the whole run met no lease of theirs and proves nothing.
   */
  static final int SKEW_IN_FLIGHT_PER_PROCESS = 30;

  /** The fewest IN_FLIGHT answers of the three together: one per this many ids. */
  static final int SKEW_IN_FLIGHT_ALL = 5;

  /**
   * Three processes with clocks 5 minutes apart race on the same ids for live leases.
   *
   * <p>What it proves: every IN_FLIGHT answer is a live lease a consumer found and left alone; had
   * the lease been judged against the {@code Clock} given to the consumer ({@code --clock-offset}),
   * the +5 min process would have taken over every lease of the others it met, and the 0 process
   * every lease of the -5 min one. Both the processes (takeovers) and the database (attempts) must
   * show none. What it does not prove: {@code --clock-offset} shifts only that {@code Clock}, not
   * the JVM's wall clock; that the JDBC store never reads the JVM clock for leases is checked in
   * inbox-jdbc (a bytecode scan, and leases following the MariaDB session clock).
   */
  @Test
  void skewedHostClocksStealNoLiveLease() throws Exception {
    EndState.reset(db);
    // No crash, no poison, short handlers, 10 s leases: nothing may ever be taken over. The same
    // --order-seed for all three and a start gate make them deliver the same id at the same
    // moment, over and over (one that falls behind tends to catch up: a DUPLICATE costs less than
    // a claim).
    ChaosRun.Shape shape = new ChaosRun.Shape(SCALE.messages, 3, 4, 0.0, "10s", 6, 404, 0);
    String order = "404";
    List<List<String>> slots =
        List.of(
            List.of("--clock-offset", "-5m", "--order-seed", order),
            List.of("--clock-offset", "0s", "--order-seed", order),
            List.of("--clock-offset", "5m", "--order-seed", order));
    long floor = SCALE.messages / SKEW_IN_FLIGHT_PER_PROCESS;
    ChaosRun.run(
        "clock skew",
        db,
        shape,
        slots,
        logs,
        1,
        ChaosRun.Faults.NONE,
        ChaosRun.Start.TOGETHER,
        (fleet, watch, injected) ->
            injected.description = "consumer Clock -5m, 0, +5m; same order, gated start",
        r -> {
          StringBuilder perSlot = new StringBuilder();
          for (Fleet.Run run : r.fleet().finalRuns()) {
            perSlot.append(
                String.format(
                    "%n  slot %d: in-flight %d, applied %d, duplicates %d, takeovers %d",
                    run.slot,
                    run.summary("in-flight"),
                    run.summary("applied"),
                    run.summary("duplicates"),
                    run.summary("takeovers")));
          }
          System.out.println("[chaos] clock skew per process:" + perSlot);
          String ctx = r.figures() + " " + r.end() + perSlot;
          for (Fleet.Run run : r.fleet().finalRuns()) {
            // Within one process the 4 workers take consecutive deliveries, so they meet their
            // own claims only where copies of an id happen to lie a few places apart (a handful
            // per run): nearly every IN_FLIGHT here is another process's live lease.
            assertThat(run.summary("in-flight"))
                .as(
                    "IN_FLIGHT answers of slot %d (clock offset %s): the processes must have met"
                        + " each other's live leases at least %d times each for the run to prove"
                        + " anything; %s",
                    run.slot, slots.get(run.slot).get(1), floor, ctx)
                .isGreaterThanOrEqualTo(floor);
            assertThat(run.summary("takeovers"))
                .as(
                    "takeovers of slot %d: each one would be a stolen live lease; %s",
                    run.slot, ctx)
                .isZero();
          }
          assertThat(r.figures().inFlight())
              .as(
                  "IN_FLIGHT answers of the three processes together (at least %d); %s",
                  SCALE.messages / SKEW_IN_FLIGHT_ALL, ctx)
              .isGreaterThanOrEqualTo(SCALE.messages / SKEW_IN_FLIGHT_ALL);
          assertThat(r.end().retried())
              .as("ids past attempt 1 in the database: each one was claimed twice; %s", ctx)
              .isZero();
        });
  }

  @Test
  void sustainedLoadHasNoDoubleEffect() throws Exception {
    Load.run(db, logs, SCALE);
  }
}
