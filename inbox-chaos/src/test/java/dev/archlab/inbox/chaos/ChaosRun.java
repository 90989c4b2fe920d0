package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The driver shared by every fault: reset the tables, start the fleet, let the injector do its
 * worst for a bounded time, wait (bounded) for every consumer to finish by itself, then read the
 * end state from the database and fail loudly on any double effect, loss or unexpected DEAD.
 */
final class ChaosRun {

  static final String CONSUMER = "chaos";

  /** What each consumer process is asked to do. */
  record Shape(
      int messages,
      int duplicates,
      int workers,
      double crashRate,
      String lease,
      int maxAttempts,
      long seed,
      int poison) {

    List<String> args(Database db) {
      List<String> a = new ArrayList<>(db.cliArgs());
      a.addAll(
          List.of(
              "--consumer",
              CONSUMER,
              "--messages",
              String.valueOf(messages),
              "--duplicates",
              String.valueOf(duplicates),
              "--workers",
              String.valueOf(workers),
              "--crash-rate",
              String.valueOf(crashRate),
              "--lease",
              lease,
              "--max-attempts",
              String.valueOf(maxAttempts),
              "--seed",
              String.valueOf(seed),
              "--poison",
              String.valueOf(poison)));
      return a;
    }
  }

  /** What an injector did: how many faults, and when each one ended (System.nanoTime). */
  static final class Injected {
    final List<Long> faultEnds = new ArrayList<>();
    String description = "none";

    void ended() {
      faultEnds.add(System.nanoTime());
    }
  }

  /** Injects faults while the fleet runs; must return within the fault window. */
  interface Injector {
    void inject(Fleet fleet, EffectWatch watch, Injected injected) throws Exception;
  }

  /** The outcome of one run, for tests that check more than the common assertions. */
  record Result(Figures figures, EndState end, Fleet fleet) {}

  private ChaosRun() {}

  /**
   * Runs one fault scenario to the end and asserts the end state. {@code perSlot} has one entry per
   * consumer process (its extra arguments).
   */
  static Result run(
      String fault,
      Database db,
      Shape shape,
      List<List<String>> perSlot,
      Path logDir,
      int runs,
      Injector injector)
      throws Exception {
    long started = System.nanoTime();
    Injected injected = new Injected();
    EndState end;
    Fleet fleet = new Fleet(logDir, shape.args(db), perSlot);
    try (EffectWatch watch = new EffectWatch(db)) {
      try {
        Fleet.migrate(db, logDir);
        EndState.createEffectTable(db);
        fleet.startAll();
        injector.inject(fleet, watch, injected);
        // Bounded: generous for two cores, but a hung consumer fails the test instead of CI.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        boolean finished = fleet.awaitAll(deadline);
        if (!finished) {
          // The log directory is deleted with the test: show what the stuck consumers said.
          StringBuilder tails = new StringBuilder();
          for (Fleet.Run r : fleet.finalRuns()) {
            String out = r.output();
            tails
                .append("\n--- slot ")
                .append(r.slot)
                .append(r.process.isAlive() ? " (still running)" : " (exited)")
                .append(":\n")
                .append(out.length() > 4000 ? out.substring(out.length() - 4000) : out);
          }
          assertThat(finished)
              .as("every consumer finished by itself within 180 s after the faults; logs:%s", tails)
              .isTrue();
        }
        for (Fleet.Run r : fleet.finalRuns()) {
          assertThat(r.process.exitValue())
              .as(
                  "exit code of slot %d (0 = its own verdict held); output:%n%s",
                  r.slot, r.output())
              .isZero();
        }
      } finally {
        fleet.close();
      }
      long recovery = -1;
      for (long t : injected.faultEnds) {
        recovery = Math.max(recovery, watch.recoveryMillis(t));
      }
      end = EndState.read(db, CONSUMER, shape.seed(), shape.messages(), shape.poison());
      Figures figures =
          new Figures(
              fault,
              db.name(),
              Scale.current().label(),
              runs,
              fleet.starts(),
              shape.messages(),
              (long) fleet.starts() * shape.messages() * (shape.duplicates() + 1),
              fleet.sum("deliveries"),
              injected.description,
              injected.faultEnds.size(),
              end.doubleEffects(),
              end.lost(),
              end.deadOther(),
              end.deadPoison(),
              fleet.sum("takeovers"),
              fleet.sum("store errors"),
              recovery,
              (System.nanoTime() - started) / 1e9);
      // Written before the assertions, so a failing run still leaves its numbers behind.
      figures.write(
          db.name() + "-" + fault.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-"));
      assertEndState(shape, end);
      return new Result(figures, end, fleet);
    }
  }

  /** The promise under test; any violation fails the build with the numbers in the message. */
  static void assertEndState(Shape shape, EndState end) {
    String ctx = end.toString();
    assertThat(end.doubleEffects()).as("double effects (must be 0): %s", ctx).isZero();
    assertThat(end.lost()).as("lost messages (must be 0): %s", ctx).isZero();
    assertThat(end.processing()).as("ids stuck in PROCESSING: %s", ctx).isZero();
    assertThat(end.deadOther()).as("DEAD ids that were not planted poison: %s", ctx).isZero();
    assertThat(end.deadPoison()).as("planted poison ids DEAD: %s", ctx).isEqualTo(shape.poison());
    long applied = shape.messages() - shape.poison();
    assertThat(end.done()).as("DONE ids: %s", ctx).isEqualTo(applied);
    assertThat(end.effectRows()).as("effect rows: %s", ctx).isEqualTo(applied);
    assertThat(end.distinctIds()).as("distinct ids with an effect: %s", ctx).isEqualTo(applied);
  }

  /** Waits until the consumers have applied {@code effects} rows, or the deadline passed. */
  static void awaitProgress(EffectWatch watch, Fleet fleet, long effects, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (watch.latest() < effects
        && System.nanoTime() < deadline
        && !fleet.aliveSlots().isEmpty()) {
      Thread.sleep(50);
    }
  }

  /** The same extra arguments (none) for each of {@code k} processes. */
  static List<List<String>> plain(int k) {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      out.add(List.of());
    }
    return out;
  }
}
