package dev.archlab.inbox.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders {@code docs/RELIABILITY.md}, whole, from the figures committed beside it in {@code
 * docs/reliability/}: one CSV file per run, written by the run itself through the testkit's {@code
 * RunFigures} (the chaos suite's fault runs, the Kafka and RabbitMQ scale-out runs). Nothing in the
 * report is copied by hand; a test fails when the committed report is not the rendering of the
 * committed figures. Plain Java, no dependencies, so it runs from {@code target/classes}.
 *
 * <p>Given run directories (the {@code target/reliability} of the modules whose runs were
 * repeated), it first copies their CSV files into the figures directory, replacing the files of the
 * same runs, then renders. It refuses (exit status 1, nothing copied or written) figures that are
 * not a passed run: a row without the {@code verdict} column or whose verdict is not {@code
 * passed}, a row showing double effects, lost messages or unexpected DEAD ids, or a row no section
 * of the report would show. The runs write {@code passed} only after every assertion held, so the
 * report's claim that every row passed is checked, not assumed.
 *
 * <p>Usage: {@code java -cp inbox-chaos/target/classes dev.archlab.inbox.chaos.ReliabilityReport
 * [figures-dir [output.md [run-dir ...]]]}, by default {@code docs/reliability} and {@code
 * docs/RELIABILITY.md}.
 */
public final class ReliabilityReport {

  /** The column written last, only by a run whose every assertion held. */
  static final String VERDICT = "verdict";

  /** The only verdict rendered. */
  static final String PASSED = "passed";

  private static final String MACHINE = "machine.txt";

  private ReliabilityReport() {}

  /**
   * Copies the figures of the run directories given, if any, then writes the report.
   *
   * @param args optional: the figures directory, the output file, run directories
   * @throws IOException when the figures cannot be read or copied, or the report written
   */
  public static void main(String[] args) throws IOException {
    Path figures = Path.of(args.length > 0 ? args[0] : "docs/reliability");
    Path out = Path.of(args.length > 1 ? args[1] : "docs/RELIABILITY.md");
    List<Path> runs = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      runs.add(Path.of(args[i]));
    }
    List<String> problems = new ArrayList<>();
    for (Path run : runs) {
      List<Map<String, String>> rows = readAll(run, problems);
      if (rows.isEmpty()) {
        problems.add(run + ": no figures (did its runs write to another directory?)");
      }
      problems.addAll(problems(rows));
    }
    if (problems.isEmpty()) {
      copyRuns(runs, figures);
      List<Map<String, String>> rows = readAll(figures, problems);
      problems.addAll(problems(rows));
      if (problems.isEmpty()) {
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, render(rows, machine(figures)), StandardCharsets.UTF_8);
        System.out.println("wrote " + out + " from " + rows.size() + " runs in " + figures);
        return;
      }
    }
    System.err.println(
        "ReliabilityReport: refusing to render "
            + out
            + ": the figures include runs that did not pass or that no section shows"
            + " (rerun them until they pass):");
    problems.forEach(p -> System.err.println("  - " + p));
    System.exit(1);
  }

  /** Copies every CSV file of {@code runs} into {@code figures}, with the newest machine line. */
  private static void copyRuns(List<Path> runs, Path figures) throws IOException {
    Files.createDirectories(figures);
    for (Path run : runs) {
      for (Path csv : csvFiles(run)) {
        Files.copy(csv, figures.resolve(csv.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
      if (Files.exists(run.resolve(MACHINE))) {
        Files.copy(
            run.resolve(MACHINE), figures.resolve(MACHINE), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static List<Path> csvFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".csv")).sorted().toList();
    }
  }

  /** The rows of every CSV file in {@code dir}, in file-name order. */
  static List<Map<String, String>> readAll(Path dir, List<String> problems) throws IOException {
    List<Map<String, String>> all = new ArrayList<>();
    for (Path csv : csvFiles(dir)) {
      all.addAll(read(csv, problems));
    }
    return all;
  }

  /** Where the figures were produced, as the runs wrote it. */
  static String machine(Path figures) throws IOException {
    Path file = figures.resolve(MACHINE);
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).strip() : "unknown";
  }

  /**
   * The rows of one figures file, each with a {@code file} entry; malformed lines go to problems.
   */
  static List<Map<String, String>> read(Path csv, List<String> problems) throws IOException {
    List<Map<String, String>> rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    if (lines.isEmpty()) {
      problems.add(csv.getFileName() + ": empty");
      return rows;
    }
    String[] header = lines.get(0).split(",", -1);
    for (String line : lines.subList(1, lines.size())) {
      String[] cells = line.split(",", -1);
      if (cells.length != header.length) {
        problems.add(
            csv.getFileName()
                + ": a row with "
                + cells.length
                + " cells under a header of "
                + header.length
                + ": "
                + line);
        continue;
      }
      Map<String, String> row = new LinkedHashMap<>();
      row.put("file", csv.getFileName().toString());
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], cells[i]);
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * Why each row may not be rendered: no passed verdict, figures that contradict the promise
   * (double effects, lost messages, unexpected DEAD) whatever the verdict says, or a fault or suite
   * that no section shows. Empty if all may.
   */
  static List<String> problems(List<Map<String, String>> rows) {
    List<String> problems = new ArrayList<>();
    for (Map<String, String> r : rows) {
      String suite = r.get("suite");
      String where =
          r.getOrDefault("file", "?")
              + " ("
              + (suite != null ? suite : r.getOrDefault("database", "?") + ", " + r.get("fault"))
              + ", "
              + r.getOrDefault("scale", "?")
              + ")";
      String verdict = r.get(VERDICT);
      if (verdict == null) {
        problems.add(where + ": no verdict column (written by an older suite, or by hand)");
      } else if (!PASSED.equals(verdict)) {
        problems.add(where + ": verdict is '" + verdict + "', not '" + PASSED + "'");
      }
      List<String> mustBeZero = new ArrayList<>(List.of("double_effects", "lost"));
      if (suite == null) {
        mustBeZero.add("dead_other");
        if (!FaultSections.renders(r.get("fault"))) {
          problems.add(where + ": fault '" + r.get("fault") + "' has no section in the report");
        }
      } else if (OutboxChainSection.SUITE.equals(suite)) {
        mustBeZero.addAll(OutboxChainSection.MUST_BE_ZERO);
      } else if (!BrokerSections.renders(suite)) {
        problems.add(where + ": suite '" + suite + "' has no section in the report");
      }
      for (String column : mustBeZero) {
        String value = r.get(column);
        if (!"0".equals(value)) {
          problems.add(where + ": " + column + " = " + value + " (must be 0)");
        }
      }
    }
    return problems;
  }

  /**
   * The report for {@code rows}: every section, whether or not it has figures.
   *
   * @throws IllegalArgumentException if any row may not be rendered (see {@link #problems})
   */
  static String render(List<Map<String, String>> rows, String machine) {
    List<String> problems = problems(rows);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "refusing to render runs that did not pass: " + String.join("; ", problems));
    }
    StringBuilder md = new StringBuilder();
    md.append("# Reliability under faults\n\n");
    md.append(
        "Generated, whole, by `ReliabilityReport` (in `inbox-chaos`) from the figures in"
            + " [`reliability/`](reliability/), one CSV file per run, each written by the run"
            + " itself. Every figure below comes from a real run: real PostgreSQL and MariaDB"
            + " servers, Kafka brokers and RabbitMQ servers started by the tests on 127.0.0.1,"
            + " consumers that are separate JVMs, and faults injected from outside. After each run"
            + " the driver reads the end state from the database itself and the build fails if"
            + " any double effect, lost message, stuck PROCESSING row or non-poison DEAD appears,"
            + " or if the run's faults all missed the running consumers. A run's figures are"
            + " marked passed only after all its checks held, and the report refuses to render"
            + " any that are not.\n\n");
    List<String> scales = rows.stream().map(r -> r.get("scale")).distinct().sorted().toList();
    List<String> days =
        rows.stream()
            .map(r -> r.getOrDefault("finished_at", "").replaceFirst("T.*", ""))
            .filter(d -> !d.isEmpty())
            .sorted()
            .toList();
    String runOn =
        days.isEmpty()
            ? "unknown"
            : days.get(0).equals(days.get(days.size() - 1))
                ? days.get(0)
                : days.get(0) + " to " + days.get(days.size() - 1);
    md.append("- **Machine:** ").append(machine).append('\n');
    md.append("- **Runs finished on:** ").append(runOn).append('\n');
    md.append("- **Scales:** ").append(scales.isEmpty() ? "none" : String.join(", ", scales));
    md.append('\n');
    md.append(
        "- **Refresh** (from the repository root; the chaos suite's short profile takes ~3.5 min,"
            + " the long one ~7 min, on 2 cores; each broker section says how to run its"
            + " suite):\n\n");
    md.append("  ```bash\n");
    md.append("  ./mvnw -B install -pl inbox-cli -am -DskipTests\n");
    md.append(
        "  ./mvnw -B verify -pl inbox-chaos                     # short profile, as CI runs it\n");
    md.append("  ./mvnw -B verify -pl inbox-chaos -Dchaos.scale=long  # long profile, by hand\n");
    md.append(
        "  java -cp inbox-chaos/target/classes dev.archlab.inbox.chaos.ReliabilityReport"
            + " docs/reliability docs/RELIABILITY.md inbox-chaos/target/reliability"
            + " inbox-kafka/target/reliability inbox-rabbitmq/target/reliability\n");
    md.append("  ```\n\n");
    md.append(
        "  The last command copies the new runs' figures over the committed ones of the same runs"
            + " (name the run directories you refreshed) and renders this file.\n\n");
    FaultSections.append(md, rows.stream().filter(r -> r.get("suite") == null).toList());
    BrokerSections.append(md, rows.stream().filter(r -> r.get("suite") != null).toList());
    OutboxChainSection.append(md, rows);
    InProcessFaults.append(md);
    return md.toString();
  }

  static String capitalize(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
