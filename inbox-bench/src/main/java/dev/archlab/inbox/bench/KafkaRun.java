package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Kafka load run: {@code KafkaInboxLoop} in each mode against a bare at-least-once loop of the
 * same shape, and one process against several, on one broker and one PostgreSQL (fsync on), in one
 * run.
 *
 * <p>Two 6-partition topics are filled before anything is timed: one with {@code records} records
 * for the per-record shapes, one with {@code batchRecords} for the batch shapes (a batch loop
 * drains a small topic too fast to time). Every case of every round then drains its topic from the
 * start under a new consumer group, after the tables were emptied: the same records, the same
 * business insert ({@link KafkaBenchConsumer#insertEffects}), one worker thread per consumer
 * process, each process a JVM of its own started before the clock and released by one {@code GO}.
 *
 * <p>The clock is the database's: every row records {@code clock_timestamp()} at its insert, and a
 * case's time is from the row at rank {@code warmupFraction × rows} to the last row. JVM start, the
 * group join and the first fetches, and the first part of the JIT warm-up, fall before the window
 * for every case alike. Rounds rotate the order of the cases, and a variant is compared with its
 * baseline round by round ({@link Targets#kafka}); the median and range of those paired ratios are
 * reported. The machine's CPU use (all cores, from {@code /proc/stat}) from {@code GO} to the last
 * row is recorded beside each case, to tell a CPU limit from a commit limit.
 *
 * <p>Each case also checks that it did the work: every id has a row, and the group's committed
 * offsets reach the end of the topic. Writes {@code kafka.csv}, {@code kafka_rounds.csv} and {@code
 * kafka_run.csv}. Run through {@link BenchMain} ({@code kafka}).
 */
final class KafkaRun {

  /** The business table of the Kafka run: no unique key, so a bare loop's duplicate shows. */
  static final String EFFECT_TABLE = "kafka_effect";

  /** The record header holding the message id (Inbox's default). */
  static final String ID_HEADER = "message-id";

  static final int PARTITIONS = 6;

  /** The processes of a case are released together; this covers their join requests. */
  static final int GROUP_JOIN_DELAY_MS = 3000;

  static final List<String> ROUNDS_HEADER =
      List.of(
          "system",
          "processes",
          "round",
          "position",
          "records",
          "effect_rows",
          "distinct_ids",
          "timed_records",
          "seconds",
          "records_per_s",
          "cpu_busy_pct",
          "client_us_per_record",
          "server_us_per_record",
          "broker_us_per_record",
          "commits_per_record",
          "statements_per_record");

  static final List<String> HEADER =
      List.of(
          "system",
          "processes",
          "rounds",
          "records",
          "timed_records",
          "seconds",
          "records_per_s",
          "baseline",
          "ratio_median",
          "ratio_min",
          "ratio_max",
          "cpu_busy_pct",
          "client_us_per_record",
          "server_us_per_record",
          "broker_us_per_record",
          "commits_per_record",
          "statements_per_record");

  /** A variant with its number of consumer processes. */
  record Case(KafkaVariant variant, int processes) {
    Case {
      if (processes < 1 || processes > PARTITIONS) {
        throw new IllegalArgumentException(
            "processes must be 1.." + PARTITIONS + ", was " + processes);
      }
    }

    /** {@code label} or {@code label:processes}, as on the command line. */
    static Case parse(String spec) {
      String s = spec.strip();
      int colon = s.indexOf(':');
      if (colon < 0) {
        return new Case(KafkaVariant.byLabel(s), 1);
      }
      return new Case(
          KafkaVariant.byLabel(s.substring(0, colon)), Integer.parseInt(s.substring(colon + 1)));
    }

    String name() {
      return variant.label() + (processes == 1 ? "" : " x" + processes);
    }
  }

  /** Every comparison the issue asks for, and the bare loop's own scale-out beside ours. */
  static final List<Case> ALL_CASES =
      List.of(
          new Case(KafkaVariant.BARE_RECORD, 1),
          new Case(KafkaVariant.INBOX_PER_MESSAGE, 1),
          new Case(KafkaVariant.INBOX_PER_MESSAGE_SINGLE, 1),
          new Case(KafkaVariant.INBOX_ONE_COMMIT, 1),
          new Case(KafkaVariant.INBOX_ONE_COMMIT_SINGLE, 1),
          new Case(KafkaVariant.FLOOR_ONE_COMMIT, 1),
          new Case(KafkaVariant.BARE_BATCH, 1),
          new Case(KafkaVariant.INBOX_BATCH, 1),
          new Case(KafkaVariant.INBOX_ONE_COMMIT_BATCH, 1),
          new Case(KafkaVariant.BARE_RECORD, 3),
          new Case(KafkaVariant.INBOX_ONE_COMMIT, 3),
          new Case(KafkaVariant.BARE_BATCH, 3),
          new Case(KafkaVariant.INBOX_BATCH, 3));

  /**
   * What to run, how much, and where to write. {@code groupJoinDelayMs} is how long a group's first
   * member waits for the others (the broker's {@code group.initial.rebalance.delay.ms}): long
   * enough that the processes of a case join one generation, so no rebalance lands in the window.
   */
  record Settings(
      List<Case> cases,
      int records,
      int batchRecords,
      int rounds,
      double warmupFraction,
      int maxPollRecords,
      int groupJoinDelayMs,
      Path brokerClasspath,
      Path outDir) {
    Settings {
      cases = List.copyOf(new java.util.LinkedHashSet<>(cases));
      if (cases.isEmpty()) {
        throw new IllegalArgumentException("no Kafka cases to run");
      }
      if (records < 10 || batchRecords < 10) {
        throw new IllegalArgumentException(
            "records and batch records must be >= 10, were " + records + " and " + batchRecords);
      }
      if (rounds < 1) {
        throw new IllegalArgumentException("rounds must be >= 1, was " + rounds);
      }
      if (!(warmupFraction >= 0 && warmupFraction < 0.9)) {
        throw new IllegalArgumentException(
            "warm-up fraction must be in [0, 0.9), was " + warmupFraction);
      }
      if (groupJoinDelayMs < 0) {
        throw new IllegalArgumentException(
            "group join delay must be >= 0 ms, was " + groupJoinDelayMs);
      }
      if (maxPollRecords < 1) {
        throw new IllegalArgumentException("max poll records must be >= 1, was " + maxPollRecords);
      }
    }

    int recordsOf(Case c) {
      return c.variant().batch() ? batchRecords : records;
    }
  }

  /**
   * One case's drain in one round. The CPU per record of the consumer processes, the database
   * server and the broker is their CPU time inside the timed window over the records timed; the
   * commits (and, with {@code --count-statements true}, the statements; else -1) per record are the
   * server's counts over the whole drain, start-up included, over every record.
   */
  record Measured(
      long records,
      long effectRows,
      long distinctIds,
      long timedRecords,
      double seconds,
      double cpuBusyPercent,
      double clientMicrosPerRecord,
      double serverMicrosPerRecord,
      double brokerMicrosPerRecord,
      double commitsPerRecord,
      double statementsPerRecord) {
    double recordsPerSecond() {
      return timedRecords / seconds;
    }
  }

  private KafkaRun() {}

  /** Starts a broker, fills the topics and runs every case in every round. */
  static Map<Case, List<Measured>> run(BenchDatabase db, Settings s) throws Exception {
    createTable(db);
    Map<Case, List<Measured>> results = new LinkedHashMap<>();
    List<List<Object>> roundRows = new ArrayList<>();
    String recordTopic = "kbench-records";
    String batchTopic = "kbench-batch";
    try (KafkaBroker broker = KafkaBroker.start(s.brokerClasspath(), s.groupJoinDelayMs());
        CpuSampler cpu = CpuSampler.start()) {
      CostMeter meter = new CostMeter(db);
      broker.createTopics(
          PARTITIONS, recordTopic, recordTopic + ".DLT", batchTopic, batchTopic + ".DLT");
      if (s.cases().stream().anyMatch(c -> !c.variant().batch())) {
        KafkaTopics.fill(broker, recordTopic, s.records());
      }
      if (s.cases().stream().anyMatch(c -> c.variant().batch())) {
        KafkaTopics.fill(broker, batchTopic, s.batchRecords());
      }
      List<Case> cases = s.cases();
      for (int round = 0; round < s.rounds(); round++) {
        for (int i = 0; i < cases.size(); i++) {
          Case c = cases.get((i + round) % cases.size());
          String topic = c.variant().batch() ? batchTopic : recordTopic;
          Measured m = KafkaDrain.drain(db, broker, cpu, meter, c, topic, s.recordsOf(c), s);
          results.computeIfAbsent(c, k -> new ArrayList<>()).add(m);
          roundRows.add(
              List.of(
                  c.variant().label(),
                  c.processes(),
                  round + 1,
                  i + 1,
                  m.records(),
                  m.effectRows(),
                  m.distinctIds(),
                  m.timedRecords(),
                  m.seconds(),
                  m.recordsPerSecond(),
                  m.cpuBusyPercent(),
                  m.clientMicrosPerRecord(),
                  m.serverMicrosPerRecord(),
                  m.brokerMicrosPerRecord(),
                  m.commitsPerRecord(),
                  m.statementsPerRecord()));
          System.out.printf(
              Locale.ROOT,
              "  kafka round %d/%d %-22s %9.0f records/s  cpu %3.0f%%  µs/record client %.0f"
                  + " server %.0f broker %.0f  commits/record %.2f%n",
              round + 1,
              s.rounds(),
              c.name(),
              m.recordsPerSecond(),
              m.cpuBusyPercent(),
              m.clientMicrosPerRecord(),
              m.serverMicrosPerRecord(),
              m.brokerMicrosPerRecord(),
              m.commitsPerRecord());
        }
      }
    }
    Csv.write(s.outDir().resolve("kafka_rounds.csv"), ROUNDS_HEADER, roundRows);
    write(results, s);
    return results;
  }

  private static void write(Map<Case, List<Measured>> results, Settings s) throws IOException {
    List<Map<String, String>> rounds = Csv.read(s.outDir().resolve("kafka_rounds.csv"));
    List<List<Object>> rows = new ArrayList<>();
    for (Map.Entry<Case, List<Measured>> e : results.entrySet()) {
      Case c = e.getKey();
      long timed = 0;
      double seconds = 0;
      double cpu = 0;
      for (Measured m : e.getValue()) {
        timed += m.timedRecords();
        seconds += m.seconds();
        cpu += m.cpuBusyPercent();
      }
      KafkaVariant base = c.variant().baseline();
      List<Double> ratios =
          base == null
              ? List.of()
              : Targets.kafkaRoundRatios(
                  rounds, c.variant().label(), c.processes(), base.label(), c.processes());
      rows.add(
          List.of(
              c.variant().label(),
              c.processes(),
              e.getValue().size(),
              (long) s.recordsOf(c),
              timed,
              seconds,
              timed / seconds,
              base == null ? "" : base.label(),
              ratios.isEmpty() ? Double.NaN : Targets.median(ratios),
              ratios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
              ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
              cpu / e.getValue().size(),
              median(e.getValue(), Measured::clientMicrosPerRecord),
              median(e.getValue(), Measured::serverMicrosPerRecord),
              median(e.getValue(), Measured::brokerMicrosPerRecord),
              median(e.getValue(), Measured::commitsPerRecord),
              median(e.getValue(), Measured::statementsPerRecord)));
      System.out.printf(Locale.ROOT, "%-22s %9.0f records/s (pooled)%n", c.name(), timed / seconds);
    }
    Csv.write(s.outDir().resolve("kafka.csv"), HEADER, rows);
    Csv.write(
        s.outDir().resolve("kafka_run.csv"),
        List.of("key", "value"),
        List.of(
            List.of(
                "run",
                String.format(
                    Locale.ROOT,
                    "%s; %d round(s); %d records (per-record shapes) and %d (batch shapes) on %d"
                        + " partitions; max.poll.records %d; timed from the row at %.0f %% to the"
                        + " last",
                    java.time.LocalDate.now(java.time.ZoneOffset.UTC),
                    s.rounds(),
                    s.records(),
                    s.batchRecords(),
                    PARTITIONS,
                    s.maxPollRecords(),
                    s.warmupFraction() * 100)),
            List.of("cores", Runtime.getRuntime().availableProcessors())));
  }

  /** The median over a case's rounds of one per-record cost. */
  private static double median(
      List<Measured> rounds, java.util.function.ToDoubleFunction<Measured> cost) {
    return Targets.median(rounds.stream().map(m -> cost.applyAsDouble(m)).toList());
  }

  private static void createTable(BenchDatabase db) throws SQLException {
    try (Connection c = db.admin().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + EFFECT_TABLE
              + " (id BIGSERIAL PRIMARY KEY, message_id VARCHAR(255) NOT NULL,"
              + " amount BIGINT NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT"
              + " clock_timestamp())");
    }
  }
}
