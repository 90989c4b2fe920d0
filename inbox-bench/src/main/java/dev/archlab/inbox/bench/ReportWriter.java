package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns one run's CSVs ({@code load.csv}, {@code memory.csv}, {@code scale.csv}, {@code
 * machine.csv}, and the Kafka, RabbitMQ and Redis runs' {@code kafka*.csv}, {@code rabbitmq.csv}
 * and {@code redis.csv} when present) into {@code docs/BENCHMARKS.md} with the tables, the targets,
 * the chart (copied next to it) and the machine. Only reads what the run wrote, so the document
 * never mixes runs. The hand-written sections live in their own files beside the CSVs and are
 * included as they are, each at a fixed place, so regenerating never drops them: the analysis of
 * the misses ({@value #ANALYSIS}) after the targets, the coalescing measurements ({@value
 * #COALESCING}) after the JDBC load table, and the {@code inbox simulate} timings ({@value
 * #SIMULATE}) at the end. A missing file leaves its section out.
 */
public final class ReportWriter {

  /** The one command that reproduces everything, quoted in the document. */
  static final String REPRODUCE =
      "./mvnw -B -q package -pl inbox-bench -am -DskipTests"
          + " && java -jar inbox-bench/target/inbox-bench.jar all --profile full";

  /** The hand-written analysis, relative to the docs directory, included when present. */
  static final String ANALYSIS = "benchmarks/analysis.md";

  /** The hand-written coalescing section (issue #19), included after the JDBC load table. */
  static final String COALESCING = "benchmarks/coalescing.md";

  /** The hand-written {@code inbox simulate} timings, included at the end of the document. */
  static final String SIMULATE = "benchmarks/simulate.md";

  private ReportWriter() {}

  /** The Kafka run's command, quoted in its section (under the lock other builds take). */
  static final String KAFKA_COMMAND =
      "flock /tmp/inbox-mvn.lock java -jar inbox-bench/target/inbox-bench.jar kafka --profile full"
          + " --out docs/benchmarks && java -jar inbox-bench/target/inbox-bench.jar report --out"
          + " docs/benchmarks";

  private static void kafkaSection(
      StringBuilder md, List<Map<String, String>> kafka, List<Map<String, String>> run) {
    md.append("\n## Kafka: KafkaInboxLoop against a bare at-least-once loop\n\n");
    md.append(
        "One KRaft broker (its own JVM) and the PostgreSQL above (fsync on). Each case drains a"
            + " pre-filled 6-partition topic under a new group, one worker thread per consumer"
            + " process, each process its own JVM; every record inserts one row (`KafkaRun`,"
            + " `KafkaBenchConsumer`). The time is the database clock from the row at the warm-up"
            + " rank to the last row. Ratios are the median of the per-round ratios to the bare"
            + " loop of the same shape and process count (range beside it).\n\n");
    md.append("```bash\n").append(KAFKA_COMMAND).append("\n```\n\n");
    for (Map<String, String> m : run) {
      md.append("- ").append(m.get("key")).append(": ").append(m.get("value")).append('\n');
    }
    md.append(
        "\nCPU per record is each party's CPU time (from `/proc`) inside the timed window over the"
            + " records timed: the consumer processes (client), PostgreSQL's postmaster and"
            + " backends (server), the broker; commits per record are the server's"
            + " (`pg_stat_database`) over the whole drain. Medians of the rounds.\n");
    md.append(
        "\n| loop | processes | records | records/s | baseline | ratio (median, range) | CPU busy"
            + " | client µs/rec | server µs/rec | broker µs/rec | commits/rec |\n"
            + "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|\n");
    for (Map<String, String> r : kafka) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f | %s | %s | %.0f %% | %s | %s | %s | %s |%n",
              r.get("system"),
              r.get("processes"),
              r.get("records"),
              Csv.number(r, "records_per_s"),
              baselineCell(r),
              ratioCell(r),
              Csv.number(r, "cpu_busy_pct"),
              costCell(r, "client_us_per_record", "%.0f"),
              costCell(r, "server_us_per_record", "%.0f"),
              costCell(r, "broker_us_per_record", "%.0f"),
              costCell(r, "commits_per_record", "%.3f")));
    }
  }

  /** A cost column, or "n/a" where the run did not record it (an older CSV, or no /proc). */
  private static String costCell(Map<String, String> r, String column, String format) {
    double v = Csv.number(r, column);
    return Double.isNaN(v) || v < 0 ? "n/a" : String.format(Locale.ROOT, format, v);
  }

  /** The Redis run's command, quoted in its section. */
  static final String REDIS_COMMAND =
      "flock /tmp/inbox-mvn.lock java -jar inbox-bench/target/inbox-bench.jar redis --profile full"
          + " --out docs/benchmarks && java -jar inbox-bench/target/inbox-bench.jar report --out"
          + " docs/benchmarks";

  private static void redisSection(StringBuilder md, List<Map<String, String>> redis) {
    md.append(
        "\n## Redis: RedisInboxStore against the lease mode, Camel's Redis repository and a bare"
            + " SET NX\n\n");
    md.append(
        "One `redis-server` and one replica of it (`--replicaof`, no persistence on either),"
            + " started by the run on free 127.0.0.1 ports, and the PostgreSQL above (fsync on)."
            + " Per message each system deduplicates the id and, if new, runs an effect outside"
            + " any database (an in-memory tally, checked against the applied count), so the"
            + " dedup's own cost is measured (`RedisRun`, `RedisSystem`). `redis-store`:"
            + " `IdempotentConsumer` on `RedisInboxStore` (begin and complete, one Lua script each);"
            + " `redis-store-wait`: the same with `waitForReplicas(1, 5 s)`; `pg-lease`: the same"
            + " consumer on `JdbcInboxStore` (a claim committed before the effect, DONE after it);"
            + " `camel-redis`: Camel's `SpringRedisStringIdempotentRepository` (camel-spring-redis"
            + " 4.17.0 on the 4.22 core, a Spring Data `StringRedisTemplate` on Lettuce), `add`"
            + " before the effect and `confirm` after it, as Camel's idempotent consumer calls them;"
            + " `redis-setnx`: one bare `SET key 1 NX` per message, the command that repository"
            + " sends for `add`, as a floor. Ratios are the median of"
            + " the per-round ratios to the baseline measured in the same round (range beside"
            + " it).\n\n");
    md.append("```bash\n").append(REDIS_COMMAND).append("\n```\n\n");
    md.append(
        "| system | threads | rounds | msg/s | p50 µs | p99 µs | baseline | ratio (median, range)"
            + " |\n|---|---:|---:|---:|---:|---:|---|---|\n");
    for (Map<String, String> r : redis) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f | %.0f | %.0f | %s | %s |%n",
              r.get("system"),
              r.get("threads"),
              r.get("rounds"),
              Csv.number(r, "msgs_per_s"),
              Csv.number(r, "p50_us"),
              Csv.number(r, "p99_us"),
              baselineCell(r),
              ratioCell(r)));
    }
  }

  /** The RabbitMQ run's command, quoted in its section. */
  static final String RABBITMQ_COMMAND =
      "flock /tmp/inbox-mvn.lock java -jar inbox-bench/target/inbox-bench.jar rabbitmq"
          + " --rabbit-records 10000 --rabbit-rounds 5 --out docs/benchmarks && java -jar"
          + " inbox-bench/target/inbox-bench.jar report --out docs/benchmarks";

  private static void rabbitSection(StringBuilder md, List<Map<String, String>> rabbit) {
    md.append("\n## RabbitMQ: RabbitInboxConsumer against a bare consumer\n\n");
    md.append(
        "A real RabbitMQ server and the PostgreSQL above (fsync on), both started by the run. Each"
            + " system's queue is filled with the messages (persistent, confirmed) before its"
            + " consumer starts, on one channel with prefetch 200 and one database connection; every"
            + " message inserts one business row, and the clock runs until the last row committed"
            + " (`RabbitThroughput`). `bare`: insert in autocommit, then ack; `one-commit`:"
            + " `RabbitInboxConsumer` in one-commit mode, the deliveries waiting on the channel as"
            + " one transaction (the default); `one-commit-single`: the same with"
            + " `maxDeliveriesPerCall(1)`; `batch`: the lease-mode batch, 100 per call. Ratios are"
            + " the median of the per-round ratios to the bare consumer of the same round (range"
            + " beside it).\n\n");
    md.append("```bash\n").append(RABBITMQ_COMMAND).append("\n```\n\n");
    md.append(
        "| system | rounds | messages | msg/s (median) | ratio to bare (median, range) | target"
            + " |\n|---|---:|---:|---:|---|---|\n");
    for (Map<String, String> r : rabbit) {
      double target = Csv.number(r, "target_ratio");
      double ratio = Csv.number(r, "ratio_median");
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f | %.2f× (%.2f–%.2f) | %s |%n",
              r.get("system"),
              r.get("rounds"),
              r.get("messages"),
              Csv.number(r, "msgs_per_s"),
              ratio,
              Csv.number(r, "ratio_min"),
              Csv.number(r, "ratio_max"),
              Double.isNaN(target)
                  ? "—"
                  : String.format(
                      Locale.ROOT, "≥ %.2f×: %s", target, ratio >= target ? "met" : "missed")));
    }
  }

  /** The outbox run's command, quoted in its section. */
  static final String OUTBOX_COMMAND =
      "flock /tmp/inbox-mvn.lock java -jar inbox-bench/target/inbox-bench.jar outbox"
          + " --outbox-records 20000 --outbox-rounds 3 --out docs/benchmarks && java -jar"
          + " inbox-bench/target/inbox-bench.jar report --out docs/benchmarks";

  private static void outboxSection(StringBuilder md, List<Map<String, String>> outbox) {
    md.append("\n## Outbox: the relay against a bare producer\n\n");
    md.append(
        "A real Kafka broker and the PostgreSQL above (fsync on), both started by the run"
            + " (`OutboxRelayRun`), in paired rounds. Throughput: `bare` is an idempotent producer"
            + " (`acks=all`) sending the backlog and flushing; `relay` is one `OutboxRelay` with its"
            + " defaults and a `KafkaOutboxPublisher` publishing the same number of rows that"
            + " wait in the outbox, rounds back to back until every row is marked SENT (each"
            + " round one transaction: claim, publish, wait for the acknowledgements, mark). The"
            + " ratio is the median of relay / bare per round. Latency, at a steady rate: `bare`"
            + " from `send` to the acknowledgement callback; `relay` from the commit of the"
            + " message's outbox row (one autocommit insert per message) to the relay marking it"
            + " SENT after the broker's acknowledgement (`sent_at - created_at`, both on the"
            + " database clock), the relay started as an application starts it (it polls every"
            + " 100 ms when it finds nothing due). Medians over the rounds.\n\n");
    md.append("```bash\n").append(OUTBOX_COMMAND).append("\n```\n\n");
    md.append(
        "| system | rounds | backlog | msg/s (median) | ratio to bare (median, range) | steady"
            + " rate | latency p50 | latency p99 |\n|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (Map<String, String> r : outbox) {
      boolean bare = r.get("system").equals("bare");
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f | %s | %s/s | %.1f ms | %.1f ms |%n",
              r.get("system"),
              r.get("rounds"),
              r.get("messages"),
              Csv.number(r, "msgs_per_s"),
              bare
                  ? "—"
                  : String.format(
                      Locale.ROOT,
                      "%.2f× (%.2f–%.2f)",
                      Csv.number(r, "ratio_median"),
                      Csv.number(r, "ratio_min"),
                      Csv.number(r, "ratio_max")),
              r.get("rate_per_s"),
              Csv.number(r, "latency_p50_ms"),
              Csv.number(r, "latency_p99_ms")));
    }
  }

  /** A paired-ratio row's baseline, or a dash on a row without one. */
  private static String baselineCell(Map<String, String> row) {
    return row.get("baseline").isEmpty() ? "—" : row.get("baseline");
  }

  /** A paired-ratio row's median and range ("1.23× (1.10–1.40)"), or a dash without a baseline. */
  private static String ratioCell(Map<String, String> row) {
    if (row.get("baseline").isEmpty()) {
      return "—";
    }
    return String.format(
        Locale.ROOT,
        "%.2f× (%.2f–%.2f)",
        Csv.number(row, "ratio_median"),
        Csv.number(row, "ratio_min"),
        Csv.number(row, "ratio_max"));
  }

  /**
   * Appends a hand-written section, if its file exists, after one blank line. The text is stripped
   * so the file's own leading or trailing blank lines cannot change the document's spacing.
   */
  private static void includeHandWritten(StringBuilder md, Path section) throws IOException {
    if (Files.exists(section)) {
      md.append('\n')
          .append(Files.readString(section, StandardCharsets.UTF_8).strip())
          .append('\n');
    }
  }

  /** Writes {@code docsDir/BENCHMARKS.md} and {@code docsDir/benchmarks/throughput.svg}. */
  public static Path write(Path benchDir, Path docsDir) throws IOException {
    List<Map<String, String>> load = Csv.read(benchDir.resolve("load.csv"));
    List<Map<String, String>> rounds = Csv.read(benchDir.resolve("load_rounds.csv"));
    List<Map<String, String>> memory = Csv.read(benchDir.resolve("memory.csv"));
    List<Map<String, String>> scale = Csv.read(benchDir.resolve("scale.csv"));
    List<Map<String, String>> machine = Csv.read(benchDir.resolve("machine.csv"));
    List<Map<String, String>> kafka = Csv.read(benchDir.resolve("kafka.csv"));
    List<Map<String, String>> kafkaRounds = Csv.read(benchDir.resolve("kafka_rounds.csv"));
    List<Map<String, String>> kafkaRun = Csv.read(benchDir.resolve("kafka_run.csv"));
    Files.createDirectories(docsDir.resolve("benchmarks"));
    Path svg = benchDir.resolve("throughput.svg");
    if (Files.exists(svg)) {
      Files.copy(
          svg, docsDir.resolve("benchmarks/throughput.svg"), StandardCopyOption.REPLACE_EXISTING);
    }
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks\n\n");
    md.append(
        "Inbox side by side with raw SQL, Apache Camel (camel-sql) and Spring Integration"
            + " (spring-integration-jdbc), generated by `inbox-bench` from one run's CSVs."
            + " Ratios compare systems measured in the same run only.\n\n");
    md.append("Reproduce everything (from the repository root):\n\n```bash\n")
        .append(REPRODUCE)
        .append("\n```\n\n");
    md.append("## Machine\n\n");
    for (Map<String, String> m : machine) {
      md.append("- ").append(m.get("key")).append(": ").append(m.get("value")).append('\n');
    }
    md.append("\n## Targets\n\n| target | measured | verdict |\n|---|---|---|\n");
    List<Targets.Check> checks =
        new java.util.ArrayList<>(Targets.check(load, rounds, memory, scale));
    checks.addAll(Targets.kafka(kafkaRounds));
    for (Targets.Check c : checks) {
      md.append("| ")
          .append(c.target())
          .append(" | ")
          .append(c.detail())
          .append(" | ")
          .append(c.verdict())
          .append(" |\n");
    }
    includeHandWritten(md, docsDir.resolve(ANALYSIS));
    md.append("\n## JDBC load (PostgreSQL, fsync on)\n\n");
    md.append(
        "Each system per message: deduplicate the id and insert one business row. See"
            + " `BenchSystem` for the exact statements and transactions of each.\n\n");
    if (Files.exists(svg)) {
      md.append("![throughput](benchmarks/throughput.svg)\n\n");
    }
    md.append("| system | connections | msg/s | p50 µs | p99 µs | floor | ratio to floor |\n");
    md.append("|---|---:|---:|---:|---:|---|---:|\n");
    for (Map<String, String> r : load) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.0f | %.0f | %.0f | %s | %s |%n",
              r.get("system"),
              r.get("connections"),
              Csv.number(r, "msgs_per_s"),
              Csv.number(r, "p50_us"),
              Csv.number(r, "p99_us"),
              r.get("floor"),
              r.get("ratio_to_floor").isEmpty() ? "—" : r.get("ratio_to_floor") + "×"));
    }
    includeHandWritten(md, docsDir.resolve(COALESCING));
    md.append("\n## In memory (JMH)\n\n| impl | threads | duplicates | ops/µs | ± |\n");
    md.append("|---|---:|---:|---:|---:|\n");
    for (Map<String, String> r : memory) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s %% | %.2f | %.2f |%n",
              r.get("impl"),
              r.get("threads"),
              r.get("duplicate_percent"),
              Csv.number(r, "ops_per_us"),
              Csv.number(r, "error_ops_per_us")));
    }
    md.append("\n## Scale: pre-filled DONE rows\n\n");
    md.append(
        "| rows | claim p50 µs | claim p99 µs | prune rows/s | consumer p50 µs during prune"
            + " | consumer p99 µs during prune |\n|---:|---:|---:|---:|---:|---:|\n");
    for (Map<String, String> r : scale) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %.0f | %.0f | %.0f |%n",
              r.get("size"),
              Csv.number(r, "claim_p50_us"),
              Csv.number(r, "claim_p99_us"),
              Csv.number(r, "prune_rows_per_s"),
              Csv.number(r, "during_prune_p50_us"),
              Csv.number(r, "during_prune_p99_us")));
    }
    if (!kafka.isEmpty()) {
      kafkaSection(md, kafka, kafkaRun);
    }
    List<Map<String, String>> rabbit = Csv.read(benchDir.resolve(RabbitThroughput.CSV));
    if (!rabbit.isEmpty()) {
      rabbitSection(md, rabbit);
    }
    List<Map<String, String>> outbox = Csv.read(benchDir.resolve(OutboxRelayRun.CSV));
    if (!outbox.isEmpty()) {
      outboxSection(md, outbox);
    }
    List<Map<String, String>> redis = Csv.read(benchDir.resolve("redis.csv"));
    if (!redis.isEmpty()) {
      redisSection(md, redis);
    }
    includeHandWritten(md, docsDir.resolve(SIMULATE));
    Path out = docsDir.resolve("BENCHMARKS.md");
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    return out;
  }
}
