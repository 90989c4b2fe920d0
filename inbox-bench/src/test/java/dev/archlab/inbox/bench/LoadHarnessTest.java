package dev.archlab.inbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How rounds combine into one result. */
class LoadHarnessTest {

  private static LoadHarness.Measured round(long messages, double seconds, long... nanos) {
    return new LoadHarness.Measured(
        new Workers.Window(messages, messages, seconds, nanos, messages),
        messages,
        new CostMeter.Cost(messages, 0, 0, 0, -1),
        "");
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

  private static java.util.Map<String, String> roundRow(
      String system, int connections, int round, double msgsPerSecond) {
    return java.util.Map.of(
        "system",
        system,
        "connections",
        Integer.toString(connections),
        "round",
        Integer.toString(round),
        "msgs_per_s",
        Double.toString(msgsPerSecond));
  }

  @Test
  void targetRatiosPairSystemsWithinARoundAndTakeTheMedian() {
    List<java.util.Map<String, String>> rounds =
        List.of(
            roundRow("inbox-1c", 1, 1, 900),
            roundRow("floor-1c", 1, 1, 1_000),
            roundRow("inbox-1c", 1, 2, 500), // a slow window of ours
            roundRow("floor-1c", 1, 2, 1_000),
            roundRow("inbox-1c", 1, 3, 1_900),
            roundRow("floor-1c", 1, 3, 2_000),
            roundRow("inbox-1c", 4, 1, 1), // other connection count: ignored
            roundRow("floor-1c", 4, 1, 1_000));
    assertThat(Targets.roundRatios(rounds, "inbox-1c", "floor-1c", 1))
        .containsExactly(0.9, 0.5, 0.95);
    assertThat(Targets.median(List.of(0.9, 0.5, 0.95))).isEqualTo(0.9);
    assertThat(Targets.median(List.of(0.9, 0.5, 0.95, 1.0))).isEqualTo(0.925);

    List<java.util.Map<String, String>> pooled =
        List.of(
            java.util.Map.of("system", "inbox-1c", "connections", "1", "msgs_per_s", "1100"),
            java.util.Map.of("system", "floor-1c", "connections", "1", "msgs_per_s", "1333"));
    List<Targets.Check> checks = Targets.check(pooled, rounds, List.of(), List.of());
    Targets.Check oneCommit =
        checks.stream()
            .filter(c -> c.target().equals("one-commit >= 0.9x its floor @1"))
            .findFirst()
            .orElseThrow();
    // Pooled 0.83x would miss; the median of the paired rounds decides, and both are shown.
    assertThat(oneCommit.verdict()).isEqualTo("PASS");
    assertThat(oneCommit.detail()).startsWith("0.90x (median of 3 rounds").contains("pooled 0.83x");
    // No memory or scale rows: reported as skipped, never passed.
    assertThat(checks)
        .filteredOn(c -> c.target().startsWith("memory store"))
        .extracting(Targets.Check::verdict)
        .containsOnly("SKIPPED");
  }
}
