package dev.archlab.inbox.chaos;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
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
          boolean first = true;
          while (System.nanoTime() < deadline) {
            // The first kill as soon as work is under way (the run then has thousands of
            // deliveries left), the others at random moments: mid-claim to mid-commit. Whether a
            // kill hit a process mid-run is checked on the frozen process, not assumed.
            if (!first) {
              Thread.sleep(500 + random.nextInt(2000));
            }
            first = false;
            Fleet.Kill kill = fleet.killAndRestartOne(random);
            if (kill == null) {
              break; // every consumer finished on its own
            }
            if (kill.hitRunningProcess()) {
              injected.ended(true); // a victim that had finished by itself is no fault
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
          injected.description =
              "pg_ctl stop -m fast, down until a consumer reports a store error, start";
          long deadline = System.nanoTime() + SCALE.faultWindow.toNanos();
          ChaosRun.awaitProgress(watch, fleet, SCALE.messages / 5, Duration.ofSeconds(60));
          while (System.nanoTime() < deadline && !fleet.aliveSlots().isEmpty()) {
            // Down until a consumer has met the outage, not for a fixed time: the evidence that
            // they met it then holds however slowly they run.
            long seen = fleet.logLines(ChaosRun.STORE_FAILURE_LINES);
            boolean met =
                db.restart(
                    () -> ChaosRun.awaitConsumerMeetsOutage(fleet, seen, Duration.ofSeconds(60)));
            ChaosRun.outageEnded(injected, db, fleet, shape.messages() - shape.poison(), true, met);
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
            long[] cut = terminateBackends();
            backends[0] += cut[0];
            // Met by construction when sessions the consumers held were among those cut: their
            // pools lost those connections whether or not a call was under way.
            ChaosRun.outageEnded(
                injected, db, fleet, shape.messages() - shape.poison(), cut[0] > 0, cut[1] > 0);
            Thread.sleep(1_500);
          }
          injected.description = "pg_terminate_backend of all (" + backends[0] + " backends)";
        });
  }

  /**
   * Cuts every other session of the database, as a failover or an admin would. Returns the sessions
   * cut, and how many of them the consumers held (by their application name).
   */
  private static long[] terminateBackends() throws Exception {
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                // The call in the inner select list runs only on rows its WHERE kept (a volatile
                // select list keeps the subquery from being merged into the outer query).
                "SELECT count(*) FILTER (WHERE cut), count(*) FILTER (WHERE cut AND app = '"
                    + Postgres.CONSUMER_APPLICATION
                    + "') FROM (SELECT application_name AS app, pg_terminate_backend(pid) AS cut"
                    + " FROM pg_stat_activity"
                    + " WHERE pid <> pg_backend_pid() AND datname = current_database()) s")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  /**
   * Processes with clocks 5 minutes apart meet leases held by construction and take none of them.
   *
   * <p>What it proves: a holder (clock -5 min) keeps a known set of ids claimed, its handlers
   * blocked until the driver releases them; the -5 min, 0 and +5 min processes each deliver every
   * one of those ids 3 times meanwhile, and every delivery must answer IN_FLIGHT (deliveries ==
   * IN_FLIGHT answers, no takeover, no handler run, every id still at attempt 1 in the database).
   * Had the leases been judged against the {@code Clock} given to the consumer, the 0 and +5 min
   * processes would have seen every one of the holder's 4 min leases expired and taken it over.
   * After the release, the holder applies every id once and the three see DUPLICATE only. What it
   * does not prove: the offset shifts only that {@code Clock}, not the JVM's wall clock; that the
   * JDBC store never reads the JVM clock for leases is checked in inbox-jdbc (a bytecode scan, and
   * leases following the MariaDB session clock).
   */
  @Test
  void skewedHostClocksStealNoLiveLease() throws Exception {
    ClockSkew.run(db, logs, SCALE.messages / 50);
  }

  /**
   * A consumer frozen with SIGSTOP for longer than its lease, holding claims and an open
   * transaction on the inbox table, while the same consumer's other instance takes its claims over
   * and a third instance starts (running {@code createSchemaIfMissing}); resumed only once the
   * others finished its claims, its late completions must all be refused. See {@link Freeze}.
   */
  @Test
  void frozenConsumerIsFencedAfterItResumes() throws Exception {
    Freeze.run(db, logs, SCALE.messages);
  }

  @Test
  void sustainedLoadHasNoDoubleEffect() throws Exception {
    Load.run(db, logs, SCALE);
  }
}
