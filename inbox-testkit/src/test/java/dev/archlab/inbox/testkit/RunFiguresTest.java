package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's figures file: one header, one row, the verdict last, nothing left of a failed start. */
class RunFiguresTest {

  @TempDir Path dir;

  @Test
  void writesAHeaderAndOneRowWithTheVerdictLastAndTheMachineBeside() throws Exception {
    Path csv = dir.resolve("sub").resolve("run.csv");
    RunFigures.startedFor(csv).put("suite", "kafka").put("ids", 20).write(RunFigures.PASSED);
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).isEqualTo("suite,ids,finished_at,verdict");
    assertThat(lines.get(1)).startsWith("kafka,20,").endsWith(",passed");
    assertThat(Files.readString(dir.resolve("sub").resolve("machine.txt"))).contains("cores");
  }

  @Test
  void commasAndLineBreaksInValuesCannotShiftTheColumns() throws Exception {
    Path csv = dir.resolve("run.csv");
    RunFigures.startedFor(csv).put("injected", "stop, then\nstart").write(RunFigures.FAILED);
    assertThat(Files.readAllLines(csv).get(1)).startsWith("stop; then start,").endsWith(",FAILED");
  }

  @Test
  void startingARunDeletesThePreviousRunsFigures() throws Exception {
    Path csv = dir.resolve("run.csv");
    RunFigures.startedFor(csv).put("ids", 1).write(RunFigures.PASSED);
    RunFigures.startedFor(csv);
    assertThat(csv).doesNotExist();
  }

  @Test
  void badColumnsAndVerdictsAreRefused() {
    RunFigures figures = RunFigures.startedFor(dir.resolve("run.csv")).put("ids", 1);
    assertThatThrownBy(() -> figures.put("ids", 2)).hasMessageContaining("written already");
    assertThatThrownBy(() -> figures.put("verdict", "passed"))
        .hasMessageContaining("written already");
    assertThatThrownBy(() -> figures.put("Bad Name", 1)).hasMessageContaining("lower-case");
    assertThatThrownBy(() -> figures.write("ok")).hasMessageContaining("passed or FAILED");
    assertThat(dir.resolve("run.csv")).doesNotExist();
  }
}
