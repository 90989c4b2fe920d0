package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.cli.SimulationIds;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
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

    /** The ids {@code inbox simulate} derives from these arguments (default table). */
    SimulationIds ids() {
      return SimulationIds.of(CONSUMER, "inbox", messages, duplicates, seed, poison);
    }

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
              String.valueOf(poison),
              // A restarted slot may meet a database that is down at that moment; a first start
              // fails fast by default.
              "--wait-for-db",
              "60s",
              "--no-progress"));
      return a;
    }
  }

  /** What an injector did: how many faults, and when each one ended (System.nanoTime). */
  static final class Injected {
    final List<Long> faultEnds = new ArrayList<>();

    /** Per fault: the effect rows read from the database right after it, or -1 if not read. */
    final List<Long> baselines = new ArrayList<>();

    int whileRunning;

    /**
     * Faults a consumer was seen to meet: it reported a store error while the server was down, or
     * the fault cut sessions the consumers held.
     */
    int met;

    String description = "none";

    /**
     * A fault just ended. {@code hitRunningConsumers}: consumers were running when it began and
     * were still running when it ended (or, for a kill, the signal ended a running process), so
     * they had to live through it rather than finish before it.
     */
    void ended(boolean hitRunningConsumers) {
      ended(hitRunningConsumers, -1);
    }

    /**
     * As {@link #ended(boolean)}, with the effect rows the driver read after the fault: recovery is
     * then measured from the fault's end until the table holds more than that.
     */
    void ended(boolean hitRunningConsumers, long effectsAfter) {
      faultEnds.add(System.nanoTime());
      baselines.add(effectsAfter);
      if (hitRunningConsumers) {
        whileRunning++;
      }
    }
  }

  /**
   * Records the end of an outage (the server is back, or the sessions were cut): it hit running
   * consumers when, read after it, the effect table still lacks rows and consumers are alive to
   * write them. Both hold by construction once true: the consumers were started before the outage
   * and must apply the rest after it, so a recovery time is always measured for such a fault.
   *
   * @param applied the effect rows the run ends with (ids minus poison)
   * @param sessionsCut for a connection cut, whether any session was cut at all
   */
  static void outageEnded(
      Injected injected, Database db, Fleet fleet, long applied, boolean sessionsCut, boolean met)
      throws Exception {
    long effects;
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + EndState.EFFECTS)) {
      rs.next();
      effects = rs.getLong(1);
    }
    // Alive checked after the count: the rows missing then must still be written by them.
    boolean hit = sessionsCut && effects < applied && !fleet.aliveSlots().isEmpty();
    injected.ended(hit, effects);
    if (met) {
      injected.met++;
    }
  }

  /**
   * How {@code inbox simulate} reports, on stderr as it happens, a delivery whose store call
   * failed: as unavailable, or with another failure (both count as its store errors).
   */
  static final List<String> STORE_FAILURE_LINES =
      List.of("inbox: store unavailable for ", "inbox: delivery of ");

  /**
   * Called while the server is down: returns true once a consumer has written a {@link
   * #STORE_FAILURE_LINES} line beyond the {@code before} seen just before the stop, i.e. it met
   * this outage. Consumers with work left must call the store, so with the server down that line
   * comes however slowly they run; {@code backstop} (or every consumer gone) only turns a broken
   * run into a failed check (false) instead of a hang.
   */
  static boolean awaitConsumerMeetsOutage(Fleet fleet, long before, Duration backstop)
      throws InterruptedException {
    long deadline = System.nanoTime() + backstop.toNanos();
    while (fleet.logLines(STORE_FAILURE_LINES) <= before) {
      if (System.nanoTime() >= deadline || fleet.aliveSlots().isEmpty()) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  /** Injects faults while the fleet runs; must return within the fault window. */
  interface Injector {
    void inject(Fleet fleet, EffectWatch watch, Injected injected) throws Exception;
  }

  /** What a scenario must have injected for its row to mean anything. */
  enum Faults {
    /** No fault at all (clock skew, load): the injector must record none. */
    NONE,
    /** At least one SIGKILL must have ended a running consumer. */
    KILLS,
    /**
     * At least one outage (server restart, connection cut) while the consumers ran; at least one
     * outage the driver saw a consumer meet ({@link Injected#met}: a store error reported while the
     * server was down, or consumer sessions cut); and the effect table must have grown after a
     * fault (a recovery time was measured).
     */
    OUTAGES
  }

  /** A scenario's own assertions, run with the common ones before the figures are recorded. */
  interface Check {
    void check(Result result) throws Exception;
  }

  /** The outcome of one run, for tests that check more than the common assertions. */
  record Result(Figures figures, EndState end, Fleet fleet, Injected injected) {}

  private ChaosRun() {}

  /**
   * {@link #run(String, Database, Shape, List, Path, int, Faults, Injector, Check)} with no check
   * of its own.
   */
  static Result run(
      String fault,
      Database db,
      Shape shape,
      List<List<String>> perSlot,
      Path logDir,
      int runs,
      Faults expected,
      Injector injector)
      throws Exception {
    return run(fault, db, shape, perSlot, logDir, runs, expected, injector, r -> {});
  }

  /**
   * Runs one fault scenario to the end, asserts the end state, what was injected ({@code expected})
   * and the scenario's own {@code check}, and only then records its figures as passed. A run that
   * fails after its figures are known records them as failed, which the report refuses to render;
   * one that fails earlier records nothing (and the previous run's row is deleted first). {@code
   * perSlot} has one entry per consumer process (its extra arguments).
   */
  static Result run(
      String fault,
      Database db,
      Shape shape,
      List<List<String>> perSlot,
      Path logDir,
      int runs,
      Faults expected,
      Injector injector,
      Check check)
      throws Exception {
    Figures.forget(db.name(), fault);
    long started = System.nanoTime();
    Injected injected = new Injected();
    Fleet fleet = new Fleet(logDir, shape.args(db), perSlot);
    try (EffectWatch watch = new EffectWatch(db)) {
      boolean finished;
      StringBuilder tails = new StringBuilder();
      try {
        Fleet.migrate(db, logDir);
        EndState.createEffectTable(db);
        fleet.startAll();
        injector.inject(fleet, watch, injected);
        // Bounded: generous for two cores, but a hung consumer fails the test instead of CI.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        finished = fleet.awaitAll(deadline);
        if (!finished) {
          // The log directory is deleted with the test: keep what the stuck consumers said.
          for (Fleet.Run r : fleet.finalRuns()) {
            String out = r.output();
            tails
                .append("\n--- slot ")
                .append(r.slot)
                .append(r.process.isAlive() ? " (still running)" : " (exited)")
                .append(":\n")
                .append(out.length() > 4000 ? out.substring(out.length() - 4000) : out);
          }
        }
      } finally {
        fleet.close();
      }
      // The end state, sampled once more: the last growth must not fall between two samples.
      watch.sampleNow();
      long recovery = -1;
      for (int i = 0; i < injected.faultEnds.size(); i++) {
        recovery =
            Math.max(
                recovery,
                watch.recoveryMillis(injected.faultEnds.get(i), injected.baselines.get(i)));
      }
      EndState end = EndState.read(db, CONSUMER, shape.ids());
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
              fleet.sum("in-flight"),
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
      Result result = new Result(figures, end, fleet, injected);
      try {
        assertThat(finished)
            .as("every consumer finished by itself within 180 s after the faults; logs:%s", tails)
            .isTrue();
        for (Fleet.Run r : fleet.finalRuns()) {
          assertThat(r.process.exitValue())
              .as(
                  "exit code of slot %d (0 = its own verdict held); output:%n%s",
                  r.slot, r.output())
              .isZero();
        }
        assertEndState(shape, end);
        assertInjected(expected, figures, injected);
        check.check(result);
      } catch (Throwable failure) {
        // Kept for diagnosis, marked so that the report refuses to render it.
        figures.write(Figures.FAILED);
        throw failure;
      }
      figures.write(Figures.PASSED);
      return result;
    }
  }

  /** A fault scenario whose faults all missed the running consumers proves nothing: fail it. */
  static void assertInjected(Faults expected, Figures figures, Injected injected) {
    String ctx = figures.toString();
    switch (expected) {
      case NONE:
        assertThat(injected.faultEnds)
            .as("faults injected in a no-fault scenario: %s", ctx)
            .isEmpty();
        break;
      case KILLS:
        assertThat(injected.whileRunning)
            .as(
                "SIGKILLs that ended a running consumer (0: the consumers finished before any"
                    + " kill, so the run proves nothing): %s",
                ctx)
            .isPositive();
        break;
      case OUTAGES:
        assertThat(injected.whileRunning)
            .as(
                "outages that began and ended while consumers ran (0: the consumers finished"
                    + " before any fault, so the run proves nothing): %s",
                ctx)
            .isPositive();
        assertThat(injected.met)
            .as(
                "outages the driver saw a consumer meet (0: no consumer reported a store error"
                    + " while the server was down, nor held a session that was cut): %s",
                ctx)
            .isPositive();
        assertThat(figures.recoveryMsMax())
            .as("recovery time (-1: the effect table never grew after a fault): %s", ctx)
            .isNotNegative();
        break;
      default:
        throw new AssertionError(expected);
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

  /**
   * Waits until the consumers have applied {@code effects} rows, or none is alive, or {@code max}
   * passed: only to start the faults once work is under way. Nothing depends on how far it got:
   * whether each fault hit running consumers is checked after it, on the frozen process or in the
   * database ({@link #outageEnded}).
   */
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
