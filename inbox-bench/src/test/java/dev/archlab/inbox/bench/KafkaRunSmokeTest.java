package dev.archlab.inbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the Kafka run wires up without running the benchmark: a real broker from the class path
 * file Maven wrote, every loop in its own consumer process, a two-process group, and a tiny topic
 * each. Every case must leave exactly one row per record and time the records after the warm-up
 * rank; the rounds file, the targets and the report section follow from it. No throughput is
 * checked.
 */
class KafkaRunSmokeTest {

  @TempDir Path out;

  @Test
  void everyLoopDrainsItsTopicWithOneRowPerRecord() throws Exception {
    List<KafkaRun.Case> cases =
        List.of(
            new KafkaRun.Case(KafkaVariant.BARE_RECORD, 1),
            new KafkaRun.Case(KafkaVariant.INBOX_PER_MESSAGE, 1),
            new KafkaRun.Case(KafkaVariant.INBOX_ONE_COMMIT, 1),
            new KafkaRun.Case(KafkaVariant.FLOOR_ONE_COMMIT, 1),
            new KafkaRun.Case(KafkaVariant.BARE_BATCH, 1),
            new KafkaRun.Case(KafkaVariant.INBOX_BATCH, 1),
            new KafkaRun.Case(KafkaVariant.INBOX_ONE_COMMIT_BATCH, 1),
            // Dedup holds under any rebalance, so two processes may join in any order.
            new KafkaRun.Case(KafkaVariant.INBOX_ONE_COMMIT, 2));
    // 50 records a poll: the batch topic takes several polls, and both loops commit each one.
    KafkaRun.Settings settings =
        new KafkaRun.Settings(
            cases, 60, 300, 1, 0.1, 50, 0, Path.of("target/kafka-broker-classpath.txt"), out);

    Map<KafkaRun.Case, List<KafkaRun.Measured>> results;
    try (BenchDatabase db = BenchDatabase.start()) {
      results = KafkaRun.run(db, settings);
    }

    assertThat(results.keySet()).containsExactlyElementsOf(cases);
    for (Map.Entry<KafkaRun.Case, List<KafkaRun.Measured>> e : results.entrySet()) {
      KafkaRun.Measured m = e.getValue().get(0);
      long records = e.getKey().variant().batch() ? 300 : 60;
      String name = e.getKey().name();
      assertThat(m.records()).as(name).isEqualTo(records);
      assertThat(m.effectRows()).as(name).isEqualTo(records);
      assertThat(m.distinctIds()).as(name).isEqualTo(records);
      // Timed: from the row at rank floor(10 % of the rows) to the last one.
      assertThat(m.timedRecords()).as(name).isEqualTo(records - 1 - records / 10);
      assertThat(m.seconds()).as(name).isPositive();
      // Every party's CPU was read (NaN would mean a process or /proc could not be).
      assertThat(
              List.of(
                  m.clientMicrosPerRecord(), m.serverMicrosPerRecord(), m.brokerMicrosPerRecord()))
          .as(name)
          .allSatisfy(v -> assertThat(v).isNotNaN().isNotNegative());
      assertThat(m.commitsPerRecord()).as(name).isPositive();
      // Statements are counted only with pg_stat_statements loaded, which this run does not.
      assertThat(m.statementsPerRecord()).as(name).isEqualTo(-1.0);
    }
    // The bare loop commits each row on its own: at least one commit per record.
    assertThat(results.get(cases.get(0)).get(0).commitsPerRecord()).isGreaterThanOrEqualTo(1.0);

    List<Map<String, String>> rounds = Csv.read(out.resolve("kafka_rounds.csv"));
    assertThat(rounds).hasSize(cases.size());
    assertThat(Csv.read(out.resolve("kafka.csv")))
        .filteredOn(r -> r.get("system").equals("inbox-batch"))
        .singleElement()
        .satisfies(r -> assertThat(r.get("baseline")).isEqualTo("bare-batch"));
    List<Targets.Check> checks = Targets.kafka(rounds);
    // Every single-process target's cases ran: each is decided, PASS or MISS.
    assertThat(checks)
        .filteredOn(c -> c.target().contains(" >= ") && !c.target().contains("3 processes"))
        .extracting(Targets.Check::verdict)
        .hasSize(4)
        .allMatch(v -> v.equals("PASS") || v.equals("MISS"));
    // No three-process case ran: that target is reported as skipped, never as passed.
    assertThat(checks)
        .filteredOn(c -> c.target().contains("3 processes >="))
        .extracting(Targets.Check::verdict)
        .containsExactly("SKIPPED");

    Path report = ReportWriter.write(out, out.resolve("docs"));
    assertThat(Files.readString(report))
        .contains("## Kafka: KafkaInboxLoop against a bare at-least-once loop")
        .contains("| inbox-one-commit | 2 | 60 |")
        .contains("| client µs/rec | server µs/rec | broker µs/rec | commits/rec |");
  }
}
