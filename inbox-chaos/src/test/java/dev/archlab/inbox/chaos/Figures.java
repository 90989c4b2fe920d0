package dev.archlab.inbox.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * One row of docs/RELIABILITY.md: what a fault run injected and what it found. Written as CSV to
 * {@code target/reliability/} (system property {@code chaos.out}); {@code ReliabilityReport}
 * renders the files. The column list is shared with the renderer through {@link #HEADER}.
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

  static final String HEADER =
      "fault,database,scale,runs,process_starts,messages,deliveries_offered,consume_calls,"
          + "in_flight,injected,injected_count,double_effects,lost,dead_other,dead_poison,"
          + "takeovers,store_errors,recovery_ms_max,seconds,finished_at,verdict";

  /** The verdict of a run whose every assertion held; the only one the report renders. */
  static final String PASSED = "passed";

  /** The verdict of a run that failed an assertion after its figures were known. */
  static final String FAILED = "FAILED";

  /** The CSV file of one test, {@code <chaos.out>/<scale>-<database>-<fault>.csv}. */
  static Path csv(String scale, String database, String fault) {
    Path dir = Path.of(System.getProperty("chaos.out", "target/reliability"));
    return dir.resolve(
        scale
            + "-"
            + database
            + "-"
            + fault.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-")
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
    Path csv = csv(scale, database, fault);
    Path dir = csv.getParent();
    String row =
        String.join(
            ",",
            List.of(
                fault,
                database,
                scale,
                String.valueOf(runs),
                String.valueOf(processStarts),
                String.valueOf(messages),
                String.valueOf(deliveriesOffered),
                String.valueOf(consumeCalls),
                String.valueOf(inFlight),
                // The CSV has no quoting: commas in the description become semicolons.
                injected.replace(',', ';'),
                String.valueOf(injectedCount),
                String.valueOf(doubleEffects),
                String.valueOf(lost),
                String.valueOf(deadOther),
                String.valueOf(deadPoison),
                String.valueOf(takeovers),
                String.valueOf(storeErrors),
                String.valueOf(recoveryMsMax),
                String.format(java.util.Locale.ROOT, "%.1f", seconds),
                Instant.now().toString(),
                verdict));
    try {
      Files.createDirectories(dir);
      // One file per test, replaced on every run, so the report shows the latest run only.
      Files.writeString(
          csv,
          HEADER + "\n" + row + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING);
      Files.writeString(dir.resolve("machine.txt"), machine(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.println("[chaos] " + HEADER + "\n[chaos] " + row);
  }

  /** Where the figures came from: CPU, cores, memory, OS, JVM. */
  static String machine() {
    String cpu = "unknown CPU";
    try {
      cpu =
          Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
              .filter(l -> l.startsWith("model name"))
              .map(l -> l.substring(l.indexOf(':') + 1).strip())
              .findFirst()
              .orElse(cpu);
    } catch (IOException | RuntimeException e) {
      // Not Linux: the OS line below still says what it was.
    }
    long memMb = Runtime.getRuntime().maxMemory() / (1024 * 1024);
    return String.format(
        java.util.Locale.ROOT,
        "%s, %d cores, %s %s (%s), Java %s (%s), test JVM max heap %d MB%n",
        cpu,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"),
        System.getProperty("java.version"),
        System.getProperty("java.vm.name"),
        memMb);
  }
}
