package dev.archlab.inbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How rounds combine into one result. */
class LoadHarnessTest {

  private static LoadHarness.Measured round(long messages, double seconds, long... nanos) {
    return new LoadHarness.Measured(
        new Workers.Window(messages, messages, seconds, nanos, messages), messages);
  }

  @Test
  void throughputIsAllMeasuredMessagesOverAllMeasuredSeconds() {
    List<LoadHarness.Measured> rounds =
        List.of(round(1_000, 1.0, 10), round(100, 0.5, 20), round(1_200, 2.5, 30));
    LoadHarness.Result r = LoadHarness.pooled(BenchSystem.FLOOR, 4, rounds);
    assertThat(r.messagesPerSecond()).isEqualTo(2_300 / 4.0);
    assertThat(r.messages()).isEqualTo(2_300);
    assertThat(r.seconds()).isEqualTo(4.0);
    assertThat(r.businessRows()).isEqualTo(2_300);
  }

  @Test
  void latencyPercentilesPoolEveryRoundsSamples() {
    List<LoadHarness.Measured> rounds =
        List.of(round(2, 1.0, 1_000, 2_000), round(2, 1.0, 3_000, 4_000));
    LoadHarness.Result r = LoadHarness.pooled(BenchSystem.FLOOR, 1, rounds);
    assertThat(r.p50Micros()).isEqualTo(2.0);
    assertThat(r.p99Micros()).isEqualTo(4.0);
  }
}
