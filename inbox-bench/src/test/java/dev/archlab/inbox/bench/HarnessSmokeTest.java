package dev.archlab.inbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the harness works without running the benchmark: every system runs a short window on one
 * connection and yields sane numbers, a tiny scale run prunes, and the CSVs turn into a chart and a
 * report. The numbers themselves are not checked against the targets here.
 */
class HarnessSmokeTest {

  private static BenchDatabase db;

  @TempDir static Path out;

  @BeforeAll
  static void start() throws Exception {
    db = BenchDatabase.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void everySystemRunsAndTheReportIsWritten() throws Exception {
    List<LoadHarness.Result> results =
        LoadHarness.run(
            db,
            new LoadHarness.Settings(List.of(BenchSystem.values()), List.of(1), 0.2, 1.0, 1, out));
    assertThat(results).hasSize(BenchSystem.values().length);
    for (LoadHarness.Result r : results) {
      // Count-bounded, not time-bounded: a window closes only after MIN_CALLS measured calls.
      assertThat(r.messages())
          .as(r.system().label())
          .isGreaterThanOrEqualTo(Workers.MIN_CALLS * r.system().batchSize());
      assertThat(r.messagesPerSecond()).as(r.system().label()).isPositive();
      assertThat(r.p50Micros()).as(r.system().label()).isPositive();
      assertThat(r.p99Micros()).as(r.system().label()).isGreaterThanOrEqualTo(r.p50Micros());
      // Unique ids only: every delivery applies and leaves exactly one business row.
      assertThat(r.businessRows()).as(r.system().label()).isEqualTo(r.applied());
      assertThat(r.applied()).as(r.system().label()).isGreaterThanOrEqualTo(r.messages());
    }

    assertThat(Csv.read(out.resolve("load_rounds.csv"))).hasSize(BenchSystem.values().length);

    ScaleRun.run(db, new ScaleRun.Settings(List.of(0L, 2_000L), 2, 0.1, 0.5, out));
    List<Map<String, String>> scale = Csv.read(out.resolve("scale.csv"));
    assertThat(scale).hasSize(2);
    assertThat(Csv.number(scale.get(1), "prune_rows")).isEqualTo(2_000);
    assertThat(Csv.number(scale.get(1), "claim_p50_us")).isPositive();

    BenchMain.writeMachine(db, out, "smoke test");
    List<Targets.Check> checks = LoadHarness.printTargets(out);
    assertThat(checks).extracting(Targets.Check::verdict).allMatch(v -> !v.isBlank());
    assertThat(Files.readString(out.resolve("throughput.svg")))
        .startsWith("<svg")
        .contains("</svg>");
    Path report = ReportWriter.write(out, out.resolve("docs"));
    assertThat(Files.readString(report)).contains("| inbox-single | 1 |", "## Machine");
  }

  @Test
  void redisRunComparesEverySystemWithItsBaseline() throws Exception {
    Path redisOut = out.resolve("redis");
    Files.createDirectories(redisOut);
    // One short round on one thread: a few seconds, including the server and its replica.
    RedisRun.run(
        db,
        new RedisRun.Settings(List.of(RedisSystem.values()), List.of(1), 0.1, 0.3, 1, redisOut));
    List<Map<String, String>> rows = Csv.read(redisOut.resolve("redis.csv"));
    // One pooled row per system, one per comparison.
    assertThat(rows).hasSize(RedisSystem.values().length + RedisRun.COMPARISONS.size());
    for (Map<String, String> r : rows) {
      assertThat(Csv.number(r, "messages")).as(r.get("system")).isGreaterThanOrEqualTo(10);
      assertThat(Csv.number(r, "msgs_per_s")).as(r.get("system")).isPositive();
      if (!r.get("baseline").isEmpty()) {
        assertThat(Csv.number(r, "ratio_median")).as(r.get("system")).isPositive();
      }
    }
    assertThat(Csv.read(redisOut.resolve("redis_rounds.csv"))).hasSize(RedisSystem.values().length);
    BenchMain.writeMachine(db, redisOut, "smoke test");
    Path report = ReportWriter.write(redisOut, redisOut.resolve("docs"));
    assertThat(Files.readString(report)).contains("## Redis", "| redis-store | 1 |");
  }

  @Test
  void camelRedisRepositoryAppliesAnIdOnceOnThisClasspath() throws Exception {
    // camel-spring-redis 4.17 on the 4.22 core and Spring Data Redis 4: the peer must still work.
    try (BenchRedisServer server = new BenchRedisServer(false)) {
      LongAdder effects = new LongAdder();
      CamelRedisDriver driver = CamelRedisDriver.open(server.uri(), effects);
      try {
        assertThat(driver.deliver(List.of("m-1"))).isEqualTo(1);
        assertThat(driver.deliver(List.of("m-1"))).isZero();
        assertThat(driver.deliver(List.of("m-2"))).isEqualTo(1);
      } finally {
        driver.close();
      }
      assertThat(effects.sum()).isEqualTo(2);
    }
  }

  @Test
  void memoryBenchmarkBodiesDeduplicate() {
    for (String impl : List.of("inbox", "chm", "chm-timed", "camel")) {
      MemoryStoreBenchmark bench = new MemoryStoreBenchmark();
      bench.impl = impl;
      bench.duplicatePercent = 50;
      bench.openStore();
      MemoryStoreBenchmark.Ids ids = new MemoryStoreBenchmark.Ids();
      ids.reset(bench);
      int applied = 0;
      for (int i = 0; i < 1_000; i++) {
        applied += bench.oneThread(ids) ? 1 : 0;
      }
      assertThat(applied).as(impl).isEqualTo(500);
    }
  }
}
