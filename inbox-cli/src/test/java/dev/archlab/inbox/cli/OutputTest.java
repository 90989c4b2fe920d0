package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** When the progress bar is drawn. */
class OutputTest {

  @Test
  void progressOnlyOnATerminalConsoleWithStderrOnATerminal() {
    // No console at all: stdin or stdout redirected (JDK 17 to 21).
    assertThat(Output.showProgress(false, null, "/dev/pts/0")).isFalse();
    // JDK 22+: a console exists even when redirected; isTerminal() tells.
    assertThat(Output.showProgress(true, false, "/dev/pts/0")).isFalse();
    assertThat(Output.showProgress(true, true, "/dev/pts/0")).isTrue();
    // Before JDK 22 a console means stdin and stdout are a terminal.
    assertThat(Output.showProgress(true, null, "/dev/pts/3")).isTrue();
    assertThat(Output.showProgress(true, null, "/dev/tty1")).isTrue();
    // stderr itself redirected (inbox simulate 2>log on a terminal).
    assertThat(Output.showProgress(true, true, "/tmp/simulate.log")).isFalse();
    assertThat(Output.showProgress(true, null, "pipe:[12345]")).isFalse();
    // A platform that cannot tell where stderr goes: the console decides.
    assertThat(Output.showProgress(true, null, null)).isTrue();
  }

  @Test
  void thisTestRunIsNotATerminal() {
    // Surefire runs the tests with redirected stdio: the real detection must say no.
    assertThat(Output.stderrIsTerminal()).isFalse();
  }

  @Test
  void barIsDrawnOnlyWhenWantedAndOnATerminal() {
    java.util.function.BooleanSupplier real = Output.progressTerminal;
    try {
      Output.progressTerminal = () -> true;
      assertThat(draw(true)).contains("\r").contains("10/10");
      assertThat(draw(false)).isEmpty();
      Output.progressTerminal = () -> false;
      assertThat(draw(true)).isEmpty();
    } finally {
      Output.progressTerminal = real;
    }
  }

  private static String draw(boolean wanted) {
    StringWriter sw = new StringWriter();
    Output.Progress p = new Output.Progress(new PrintWriter(sw, true), "x", 10, wanted);
    p.update(10);
    p.finish();
    return sw.toString();
  }
}
