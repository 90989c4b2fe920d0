package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
