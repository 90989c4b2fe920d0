package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.testkit.RunFigures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The renderer renders only passed runs: the doc's "every row passed" is enforced here, not by
 * trusting whoever wrote the CSV. No database: runs in a second.
 */
class ReliabilityReportTest {

  @TempDir Path dir;

  private static Figures figures(String fault, long doubleEffects, long lost, long deadOther) {
    // A database name no real run uses, so these rows cannot pass for real figures.
    return new Figures(
        fault,
        "unit-test-db",
        "short",
        1,
        3,
        3000,
        27000,
        27076,
        12,
        "pg_ctl stop -m fast, 2 s down",
        2,
        doubleEffects,
        lost,
        deadOther,
        5,
        28,
        11,
        370,
        22.6);
  }

  /** Writes {@code f} with {@code verdict} through the suite's own writer, into {@link #dir}. */
  private Path write(Figures f, String verdict) {
    String before = System.getProperty("chaos.out");
    System.setProperty("chaos.out", dir.toString());
    try {
      f.write(verdict);
      return Figures.csv(f.scale(), f.database(), f.fault());
    } finally {
      if (before == null) {
        System.clearProperty("chaos.out");
      } else {
        System.setProperty("chaos.out", before);
      }
    }
  }

  private List<Map<String, String>> read(Path csv) throws Exception {
    List<String> problems = new ArrayList<>();
    List<Map<String, String>> rows = ReliabilityReport.read(csv, problems);
    assertThat(problems).isEmpty();
    return rows;
  }

  @Test
  void aPassedRunRoundTripsIntoItsTable() throws Exception {
    List<Map<String, String>> rows =
        read(write(figures("server restart", 0, 0, 0), Figures.PASSED));
    assertThat(ReliabilityReport.problems(rows)).isEmpty();
    assertThat(ReliabilityReport.render(rows, "a machine"))
        .contains(
            "| unit-test-db | short | 1 | 3 | 3000 | 27000 | 27076 | 12 | pg_ctl stop -m fast, 2 s"
                + " down | 2 | 0 | 0 | 0 | 5 | 28 | 11 | 0.37 s | 22.6 s |");
  }

  @Test
  void aFailedRunIsRefusedEvenWithCleanFigures() throws Exception {
    List<Map<String, String>> rows =
        read(write(figures("server restart", 0, 0, 0), Figures.FAILED));
    assertThat(ReliabilityReport.problems(rows)).singleElement().asString().contains("FAILED");
    assertThatThrownBy(() -> ReliabilityReport.render(rows, "m"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refusing");
  }

  @Test
  void doubleEffectsLossesAndUnexpectedDeadAreRefusedWhateverTheVerdict() throws Exception {
    List<Map<String, String>> rows = new ArrayList<>();
    rows.addAll(read(write(figures("process kill", 1, 0, 0), Figures.PASSED)));
    rows.addAll(read(write(figures("connection cut", 0, 2, 0), Figures.PASSED)));
    rows.addAll(read(write(figures("clock skew", 0, 0, 3), Figures.PASSED)));
    assertThat(ReliabilityReport.problems(rows))
        .hasSize(3)
        .anySatisfy(p -> assertThat(p).contains("double_effects = 1"))
        .anySatisfy(p -> assertThat(p).contains("lost = 2"))
        .anySatisfy(p -> assertThat(p).contains("dead_other = 3"));
  }

  @Test
  void aRowWithoutTheVerdictColumnIsRefused() throws Exception {
    Path csv = dir.resolve("short-unit-test-db-old.csv");
    Files.writeString(
        csv,
        "fault,database,scale,double_effects,lost,dead_other\nprocess kill,unit-test-db,short,0,0,0\n",
        StandardCharsets.UTF_8);
    assertThat(ReliabilityReport.problems(read(csv)))
        .singleElement()
        .asString()
        .contains("no verdict column");
  }

  /** A broker scale-out row written through the runs' writer, into {@code runDir}. */
  private static Path brokerRun(Path runDir, String suite, long doubleEffects, String verdict) {
    Path csv = runDir.resolve(suite + "-scale-out-short.csv");
    RunFigures.startedFor(csv)
        .put("suite", suite)
        .put("scale", "short")
        .put("ids", 2000)
        .put("records", 2200)
        .put("partitions", 6)
        .put("consumers", 3)
        .put("kills", 3)
        .put("broker_restarts", 0)
        .put("process_starts", 6)
        .put("effect_rows", 1995 + doubleEffects)
        .put("double_effects", doubleEffects)
        .put("lost", 0)
        .put("dead", 5)
        .put("good_dead_by_lease_expiry", 0)
        .put("dead_letters", 5)
        .put("seconds", "24.3")
        .write(verdict);
    return csv;
  }

  @Test
  void theCommittedReportIsTheRenderingOfTheCommittedFigures() throws Exception {
    // Tests run in inbox-chaos/; the report and its figures are in the repository's docs/.
    Path docs = Path.of("..", "docs").toAbsolutePath().normalize();
    Path figures = docs.resolve("reliability");
    List<String> problems = new ArrayList<>();
    List<Map<String, String>> rows = ReliabilityReport.readAll(figures, problems);
    assertThat(problems).as("committed figures that may not be rendered").isEmpty();
    assertThat(rows).as("committed figures in " + figures).isNotEmpty();
    assertThat(Files.readString(docs.resolve("RELIABILITY.md"), StandardCharsets.UTF_8))
        .as(
            "docs/RELIABILITY.md must be the rendering of docs/reliability/ (run ReliabilityReport"
                + " as the report says; never edit the file by hand)")
        .isEqualTo(ReliabilityReport.render(rows, ReliabilityReport.machine(figures)));
  }

  @Test
  void everySectionIsRenderedEvenWithoutItsFigures() {
    String md = ReliabilityReport.render(List.of(), "m");
    for (String fault : FaultSections.FAULTS.keySet()) {
      assertThat(md).contains("## " + ReliabilityReport.capitalize(fault) + "\n");
    }
    for (List<String> suite : BrokerSections.SUITES) {
      assertThat(md).contains("## " + suite.get(1) + "\n");
    }
    assertThat(md)
        .contains("## " + OutboxChainSection.HEADING + "\n")
        .contains("## Faults checked inside one JVM, on every database\n")
        .contains("_No figures for this fault yet._")
        .contains("_No figures for this run yet._");
  }

  @Test
  void aBrokerRunRoundTripsIntoItsSection() throws Exception {
    List<Map<String, String>> rows = read(brokerRun(dir, "rabbitmq", 0, RunFigures.PASSED));
    String md = ReliabilityReport.render(rows, "m");
    String rabbit = md.substring(md.indexOf("## RabbitMQ"));
    assertThat(rabbit)
        .contains(
            "| short | 2000 | 2200 | 6 | 3 | 3 | 0 | 6 | 1995 | 0 | 0 | 5 | 0 | 5 | 24.3 s |");
    assertThat(md.substring(md.indexOf("## Kafka"), md.indexOf("## RabbitMQ")))
        .contains("_No figures for this run yet._");
  }

  @Test
  void rowsNoSectionShowsAreRefused() throws Exception {
    List<Map<String, String>> rows = new ArrayList<>();
    rows.addAll(read(brokerRun(dir, "pulsar", 0, RunFigures.PASSED)));
    rows.addAll(read(write(figures("disk full", 0, 0, 0), Figures.PASSED)));
    assertThat(ReliabilityReport.problems(rows))
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("suite 'pulsar' has no section"))
        .anySatisfy(p -> assertThat(p).contains("fault 'disk full' has no section"));
  }

  @Test
  void aBrokerRunWithADoubleEffectIsRefusedWhateverTheVerdict() throws Exception {
    List<Map<String, String>> rows = read(brokerRun(dir, "kafka", 1, RunFigures.PASSED));
    assertThat(ReliabilityReport.problems(rows))
        .singleElement()
        .asString()
        .contains("double_effects = 1");
  }

  @Test
  void theCommandCopiesTheRunsFiguresOverTheCommittedOnesAndRenders() throws Exception {
    Path figures = dir.resolve("figures");
    Path oldRun = brokerRun(figures, "kafka", 0, RunFigures.PASSED);
    Files.writeString(
        oldRun, Files.readString(oldRun).replace(",24.3,", ",99.9,"), StandardCharsets.UTF_8);
    Path runDir = dir.resolve("run");
    brokerRun(runDir, "kafka", 0, RunFigures.PASSED);
    Path out = dir.resolve("RELIABILITY.md");
    Process p = command(figures, out, runDir);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(Files.readString(figures.resolve("kafka-scale-out-short.csv"))).contains(",24.3,");
    assertThat(figures.resolve("machine.txt")).exists();
    assertThat(Files.readString(out)).contains("| 24.3 s |").doesNotContain("99.9");
  }

  @Test
  void theCommandCopiesNothingWhenARunToCopyFailed() throws Exception {
    Path figures = dir.resolve("figures");
    brokerRun(figures, "kafka", 0, RunFigures.PASSED);
    Path runDir = dir.resolve("run");
    brokerRun(runDir, "rabbitmq", 0, RunFigures.FAILED);
    Path out = dir.resolve("RELIABILITY.md");
    Process p = command(figures, out, runDir);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(1);
    assertThat(figures.resolve("rabbitmq-scale-out-short.csv")).doesNotExist();
    assertThat(out).doesNotExist();
  }

  private Process command(Path... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ReliabilityReport.class.getName());
    for (Path a : args) {
      cmd.add(a.toString());
    }
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("command-" + System.nanoTime() + ".log").toFile())
        .start();
  }

  @Test
  void theCommandExitsNonZeroAndWritesNothingWhenARunFailed() throws Exception {
    write(figures("server restart", 0, 0, 0), Figures.PASSED);
    write(figures("process kill", 0, 0, 0), Figures.FAILED);
    Path out = dir.resolve("out").resolve("RELIABILITY.md");
    Path log = dir.resolve("report.log");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                ReliabilityReport.class.getName(),
                dir.toString(),
                out.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String said = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("exit status; output: %s", said).isEqualTo(1);
    assertThat(said).contains("refusing to render").contains("process kill").contains("FAILED");
    assertThat(out).doesNotExist();
  }
}
