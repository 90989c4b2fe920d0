package dev.archlab.inbox.chaos;

import dev.archlab.inbox.testkit.RunFigures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One row of docs/RELIABILITY.md: what a fault run injected and what it found. Written as CSV to
 * {@code target/reliability/} (system property {@code chaos.out}); {@code ReliabilityReport}
 * renders the files. Written through {@link RunFigures}, the format every fault run shares.
 *
 * <p>The last column is the verdict: {@link #PASSED} is written only after every assertion of the
 * run held; a run that failed after its figures were known writes {@link #FAILED} (so its numbers
 * stay behind for diagnosis), and {@code ReliabilityReport} refuses to render any row that is not
 * {@link #PASSED}.
 */
record Figures(
    String fault,
    String database,
    String scale,
    int runs,
    int processStarts,
    long messages,
    long deliveriesOffered,
    long consumeCalls,
    long inFlight,
    String injected,
    long injectedCount,
    long doubleEffects,
    long lost,
    long deadOther,
    long deadPoison,
    long takeovers,
    long storeErrors,
    long recoveryMsMax,
    double seconds) {

  /** The verdict of a run whose every assertion held; the only one the report renders. */
  static final String PASSED = RunFigures.PASSED;

  /** The verdict of a run that failed an assertion after its figures were known. */
  static final String FAILED = RunFigures.FAILED;

  /** The CSV file of one test, {@code <chaos.out>/<scale>-<database>-<fault>.csv}. */
  static Path csv(String scale, String database, String fault) {
    Path dir = Path.of(System.getProperty("chaos.out", "target/reliability"));
    return dir.resolve(
        scale
            + "-"
            + database
            + "-"
            + fault.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-")
            + ".csv");
  }

  /**
   * Deletes what an earlier run of the same test left, so that a run failing before its figures are
   * known cannot leave the previous run's row standing for it.
   */
  static void forget(String database, String fault) {
    try {
      Files.deleteIfExists(csv(Scale.current().label(), database, fault));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes this row, with {@code verdict} ({@link #PASSED} or {@link #FAILED}) as its last column,
   * to the test's file (see {@link #csv}), replacing what an earlier run wrote there.
   */
  void write(String verdict) {
    RunFigures.startedFor(csv(scale, database, fault))
        .put("fault", fault)
        .put("database", database)
        .put("scale", scale)
        .put("runs", runs)
        .put("process_starts", processStarts)
        .put("messages", messages)
        .put("deliveries_offered", deliveriesOffered)
        .put("consume_calls", consumeCalls)
        .put("in_flight", inFlight)
        .put("injected", injected)
        .put("injected_count", injectedCount)
        .put("double_effects", doubleEffects)
        .put("lost", lost)
        .put("dead_other", deadOther)
        .put("dead_poison", deadPoison)
        .put("takeovers", takeovers)
        .put("store_errors", storeErrors)
        .put("recovery_ms_max", recoveryMsMax)
        .put("seconds", String.format(Locale.ROOT, "%.1f", seconds))
        .write(verdict);
  }
}
