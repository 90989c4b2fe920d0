package dev.archlab.inbox.chaos;

import java.nio.file.Path;

/**
 * Sustained load: rounds of K processes with several workers each on thousands of ids delivered 4
 * times each, with a few simulated crashes, until the load window is over. Each round is checked on
 * its own; the figures are summed over the rounds.
 */
final class Load {
  private Load() {}

  static void run(Database db, Path logs, Scale scale) throws Exception {
    // The total is written only if every round passed: forget the last run's until then.
    Figures.forget(db.name(), "load");
    EndState.reset(db);
    long deadline = System.nanoTime() + scale.loadWindow.toNanos();
    long started = System.nanoTime();
    int rounds = 0;
    Figures total = null;
    do {
      ChaosRun.Shape shape =
          new ChaosRun.Shape(scale.loadMessages, 3, 3, 0.02, "2s", 8, 500 + rounds, 0);
      Path dir = logs.resolve("round" + rounds);
      java.nio.file.Files.createDirectories(dir);
      Figures f =
          ChaosRun.run(
                  "load round",
                  db,
                  shape,
                  ChaosRun.plain(3),
                  dir,
                  1,
                  ChaosRun.Faults.NONE,
                  (a, b, c) -> {})
              .figures();
      rounds++;
      total =
          total == null
              ? f
              : new Figures(
                  "load",
                  f.database(),
                  f.scale(),
                  rounds,
                  total.processStarts() + f.processStarts(),
                  total.messages() + f.messages(),
                  total.deliveriesOffered() + f.deliveriesOffered(),
                  total.consumeCalls() + f.consumeCalls(),
                  total.inFlight() + f.inFlight(),
                  "3 processes x 3 workers, 4 deliveries per id, crash rate 0.02",
                  0,
                  total.doubleEffects() + f.doubleEffects(),
                  total.lost() + f.lost(),
                  total.deadOther() + f.deadOther(),
                  total.deadPoison() + f.deadPoison(),
                  total.takeovers() + f.takeovers(),
                  total.storeErrors() + f.storeErrors(),
                  -1,
                  (System.nanoTime() - started) / 1e9);
    } while (System.nanoTime() < deadline);
    new Figures(
            "load",
            total.database(),
            total.scale(),
            rounds,
            total.processStarts(),
            total.messages(),
            total.deliveriesOffered(),
            total.consumeCalls(),
            total.inFlight(),
            "3 processes x 3 workers, 4 deliveries per id, crash rate 0.02",
            0,
            total.doubleEffects(),
            total.lost(),
            total.deadOther(),
            total.deadPoison(),
            total.takeovers(),
            total.storeErrors(),
            -1,
            (System.nanoTime() - started) / 1e9)
        .write(Figures.PASSED); // every round passed its checks, or ChaosRun.run threw
  }
}
