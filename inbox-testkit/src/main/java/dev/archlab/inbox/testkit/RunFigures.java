package dev.archlab.inbox.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The figures of one fault run, as the file {@code docs/RELIABILITY.md} is rendered from: a CSV
 * file of a header and one row, replaced by every run of the same test, with {@code finished_at}
 * and {@code verdict} as its last two columns, and a {@code machine.txt} beside it saying where it
 * ran. The chaos suite, the broker adapters' scale-out runs and the outbox's end-to-end run all
 * write through this class, so {@code ReliabilityReport} (in {@code inbox-chaos}) reads one format.
 *
 * <p>The verdict is {@link #PASSED} only when the caller says so, which it does after every
 * assertion of the run held; the report refuses any other row. Values are written as they are,
 * except that commas become semicolons (the CSV has no quoting) and line breaks spaces.
 */
public final class RunFigures {

  /** The verdict of a run whose every assertion held; the only one the report renders. */
  public static final String PASSED = "passed";

  /** The verdict of a run that failed an assertion after its figures were known. */
  public static final String FAILED = "FAILED";

  private final Path csv;
  private final Map<String, String> columns = new LinkedHashMap<>();

  private RunFigures(Path csv) {
    this.csv = csv;
  }

  /**
   * The directory fault runs write their figures to: the system property {@code reliability.out},
   * else {@code target/reliability} of the module whose tests run.
   *
   * @return the directory (not created yet)
   */
  public static Path directory() {
    return Path.of(System.getProperty("reliability.out", "target/reliability"));
  }

  /**
   * Figures to be written to {@code csv}, which is deleted at once: a run that fails before its
   * figures are known must not leave an earlier run's row standing for it.
   *
   * @param csv the file, e.g. {@code directory().resolve("kafka-scale-out-short.csv")}
   * @return an empty set of figures
   */
  public static RunFigures startedFor(Path csv) {
    Objects.requireNonNull(csv, "csv");
    try {
      Files.deleteIfExists(csv);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new RunFigures(csv);
  }

  /**
   * Adds a column, in the order of the calls.
   *
   * @param name the column's name (letters, digits and underscores)
   * @param value its value, written with {@link String#valueOf(Object)}
   * @return this
   * @throws IllegalArgumentException for a bad or repeated name
   */
  public RunFigures put(String name, Object value) {
    if (name == null || !name.matches("[a-z][a-z0-9_]*")) {
      throw new IllegalArgumentException("a column name is lower-case letters, digits, _: " + name);
    }
    if (name.equals("finished_at") || name.equals("verdict") || columns.containsKey(name)) {
      throw new IllegalArgumentException("column " + name + " is written already");
    }
    columns.put(name, String.valueOf(value).replace(',', ';').replaceAll("[\\r\\n]+", " "));
    return this;
  }

  /**
   * Writes the header and the row with {@code verdict} (replacing the file), and {@code
   * machine.txt} beside it, then prints both lines to standard output.
   *
   * @param verdict {@link #PASSED} or {@link #FAILED}
   */
  public void write(String verdict) {
    if (!PASSED.equals(verdict) && !FAILED.equals(verdict)) {
      throw new IllegalArgumentException("verdict is passed or FAILED, was " + verdict);
    }
    List<String> names = new ArrayList<>(columns.keySet());
    names.add("finished_at");
    names.add("verdict");
    List<String> values = new ArrayList<>(columns.values());
    values.add(Instant.now().toString());
    values.add(verdict);
    String header = String.join(",", names);
    String row = String.join(",", values);
    try {
      Path dir = csv.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Files.writeString(
          csv,
          header + "\n" + row + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING);
      Files.writeString(dir.resolve("machine.txt"), machine() + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.println("[figures] " + csv.getFileName() + ": " + header + "\n[figures] " + row);
  }

  /**
   * Where the figures come from: CPU, cores, OS, JVM and its heap.
   *
   * @return one line
   */
  public static String machine() {
    String cpu = "unknown CPU";
    try {
      cpu =
          Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
              .filter(l -> l.startsWith("model name"))
              .map(l -> l.substring(l.indexOf(':') + 1).strip())
              .findFirst()
              .orElse(cpu);
    } catch (IOException | RuntimeException e) {
      // Not Linux: the OS part of the line still says what it was.
    }
    return String.format(
        Locale.ROOT,
        "%s, %d cores, %s %s (%s), Java %s (%s), test JVM max heap %d MB",
        cpu,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"),
        System.getProperty("java.version"),
        System.getProperty("java.vm.name"),
        Runtime.getRuntime().maxMemory() / (1024 * 1024));
  }
}
