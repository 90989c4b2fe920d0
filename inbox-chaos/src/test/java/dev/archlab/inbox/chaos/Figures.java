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
          + "injected,injected_count,double_effects,lost,dead_other,dead_poison,takeovers,"
          + "store_errors,recovery_ms_max,seconds,finished_at";

  /** Appends this row to {@code <chaos.out>/<file>.csv}, writing the header first if new. */
  void write(String file) {
    Path dir = Path.of(System.getProperty("chaos.out", "target/reliability"));
    Path csv = dir.resolve(scale + "-" + file + ".csv");
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
                Instant.now().toString()));
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
