package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Durations as the options take them: 500ms, 2s, 5m, 36h, 7d, and nothing else. */
class DurationsTest {

  @ParameterizedTest
  @CsvSource({"2s, PT2S", "5m, PT5M", "36h, PT36H", "500ms, PT0.5S", "7d, PT168H", "0s, PT0S"})
  void wellFormedDurationsParse(String text, String iso) {
    assertThat(Durations.parse(text)).isEqualTo(Duration.parse(iso));
    assertThat(Durations.format(Durations.parse(text))).isEqualTo(text.equals("0s") ? "0ms" : text);
  }

  @ParameterizedTest
  @ValueSource(strings = {"5x", "-1s", "1.5h", "", " ", "5", "s", "1h30m", "5 m", "12345678901s"})
  void malformedDurationsAreUsageErrors(String text) {
    Cli.Result r = Cli.run("status", "--db", "jdbc:h2:mem:durations", "--retention", text);
    CliTest.assertOneLineError(r, 2, "invalid duration");
    assertThat(r.err()).contains("(see 'inbox status --help')");
  }
}
