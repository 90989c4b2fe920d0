package dev.archlab.inbox.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The entry point of the shaded jar {@code inbox-bench/target/inbox-bench.jar}:
 *
 * <pre>
 * java -jar inbox-bench.jar all    [--profile quick|full] [options]   everything, then the report
 * java -jar inbox-bench.jar load   [options]                          JDBC load harness only
 * java -jar inbox-bench.jar scale  [options]                          scale runs only
 * java -jar inbox-bench.jar rabbitmq [--rabbit-records N] [--rabbit-rounds R]  RabbitMQ throughput
 * java -jar inbox-bench.jar redis  [--profile quick|full] [options]   Redis store against its peers
 * java -jar inbox-bench.jar memory [--profile quick|full]             JMH memory benchmark to CSV
 * java -jar inbox-bench.jar kafka  [--profile quick|full] [options]   Kafka loops on a real broker
 * java -jar inbox-bench.jar report [--out DIR] [--docs DIR]           BENCHMARKS.md from the CSVs
 * java -jar inbox-bench.jar jmh    [JMH arguments]                    plain JMH command line
 * </pre>
 *
 * <p>Options (defaults from the profile, {@code quick} unless given): {@code --warmup S}, {@code
 * --duration S}, {@code --rounds N}, {@code --connections 1,4,8}, {@code --systems
 * floor,inbox-single,…}, {@code --count-statements true} (load and kafka: loads {@code
 * pg_stat_statements} to count statements per message, at a small cost to every system), {@code
 * --sizes 0,1000000,10000000}, {@code --scale-consumers 4}, {@code --scale-seconds S}, {@code --out
 * inbox-bench/target/bench}, {@code --docs docs}. Kafka: {@code --kafka-records N} (per-record
 * shapes), {@code --kafka-batch-records N} (batch shapes), {@code --kafka-rounds N}, {@code
 * --kafka-cases bare-record,inbox-one-commit:3,…} (a label, or label: processes), {@code
 * --kafka-max-poll N}, {@code --kafka-warmup-fraction F}, {@code --broker-classpath
 * inbox-bench/target/kafka-broker-classpath.txt}. Redis: {@code --redis-systems
 * redis-store,pg-lease,…}, {@code --redis-threads 1,4,8}, {@code --redis-rounds N}, and {@code
 * --warmup S}, {@code --duration S} as for the load harness. Outbox ({@code outbox}): {@code
 * --outbox-records N} (the backlog, 20000), {@code --outbox-rounds N} (3), {@code --outbox-rate
 * PER_S} and {@code --outbox-seconds S} (the steady rate of the latency run, 500/s for 10 s),
 * {@code --outbox-batch N} (the relay's batch size; its default if absent).
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println(
          "usage: inbox-bench.jar all|load|scale|memory|kafka|rabbitmq|redis|report|jmh [options]");
      System.exit(2);
    }
    if (args[0].equals("jmh")) {
      org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      // Camel, Spring and the embedded database log at INFO per start; the numbers are the output.
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka") == null) {
      // The admin client warns on every refused connection while the broker starts.
      System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
    }
    Map<String, String> o = options(Arrays.copyOfRange(args, 1, args.length));
    boolean full = "full".equals(o.getOrDefault("profile", "quick"));
    Path out = Path.of(o.getOrDefault("out", "inbox-bench/target/bench"));
    Path docs = Path.of(o.getOrDefault("docs", "docs"));
    Files.createDirectories(out);
    switch (args[0]) {
      case "all":
        MemoryRun.run(!full, out);
        try (BenchDatabase db = BenchDatabase.start()) {
          LoadHarness.Settings load = load(o, full, out);
          writeMachine(db, out, describe(full, load));
          LoadHarness.run(db, load);
          ScaleRun.run(db, scale(o, full, out));
          KafkaRun.run(db, kafka(o, full, out));
        }
        LoadHarness.printTargets(out);
        System.out.println("wrote " + ReportWriter.write(out, docs));
        break;
      case "kafka":
        try (BenchDatabase db = BenchDatabase.start("true".equals(o.get("count-statements")))) {
          KafkaRun.run(db, kafka(o, full, out));
        }
        LoadHarness.printTargets(out);
        break;
      case "load":
        try (BenchDatabase db = BenchDatabase.start("true".equals(o.get("count-statements")))) {
          LoadHarness.Settings load = load(o, full, out);
          writeMachine(db, out, describe(full, load));
          LoadHarness.run(db, load);
        }
        LoadHarness.printTargets(out);
        break;
      case "scale":
        try (BenchDatabase db = BenchDatabase.start()) {
          ScaleRun.run(db, scale(o, full, out));
        }
        LoadHarness.printTargets(out);
        break;
      case "rabbitmq":
        // Its own runner (a RabbitMQ server and PostgreSQL of its own); N records, output dir.
        RabbitThroughput.main(
            new String[] {
              o.getOrDefault("rabbit-records", "20000"),
              out.toString(),
              o.getOrDefault("rabbit-rounds", "5")
            });
        break;
      case "outbox":
        try (BenchDatabase db = BenchDatabase.start();
            KafkaBroker broker =
                KafkaBroker.start(
                    Path.of(
                        o.getOrDefault(
                            "broker-classpath", KafkaBroker.DEFAULT_CLASSPATH_FILE.toString())),
                    0)) {
          OutboxRelayRun.run(
              db,
              broker,
              new OutboxRelayRun.Settings(
                  Integer.parseInt(o.getOrDefault("outbox-records", "20000")),
                  Integer.parseInt(o.getOrDefault("outbox-rounds", "3")),
                  Integer.parseInt(o.getOrDefault("outbox-rate", "500")),
                  Integer.parseInt(o.getOrDefault("outbox-seconds", "10")),
                  Integer.parseInt(o.getOrDefault("outbox-batch", "0")),
                  out));
        }
        break;
      case "redis":
        try (BenchDatabase db = BenchDatabase.start()) {
          RedisRun.run(db, redis(o, full, out));
        }
        break;
      case "memory":
        MemoryRun.run(!full, out);
        LoadHarness.printTargets(out);
        break;
      case "report":
        System.out.println("wrote " + ReportWriter.write(out, docs));
        break;
      default:
        System.err.println("unknown command " + args[0]);
        System.exit(2);
    }
  }

  static LoadHarness.Settings load(Map<String, String> o, boolean full, Path out) {
    List<BenchSystem> systems = new ArrayList<>();
    if (o.containsKey("systems")) {
      for (String s : o.get("systems").split(",")) {
        systems.add(BenchSystem.byLabel(s.strip()));
      }
    } else {
      systems.addAll(Arrays.asList(BenchSystem.values()));
    }
    List<Integer> connections = new ArrayList<>();
    for (String c : o.getOrDefault("connections", "1,4,8").split(",")) {
      connections.add(Integer.parseInt(c.strip()));
    }
    return new LoadHarness.Settings(
        systems,
        connections,
        Double.parseDouble(o.getOrDefault("warmup", full ? "5" : "4")),
        Double.parseDouble(o.getOrDefault("duration", full ? "10" : "8")),
        // Five short rounds rather than three long ones: the targets take the median of the
        // per-round ratios, which needs rounds more than it needs long windows.
        Integer.parseInt(o.getOrDefault("rounds", full ? "5" : "3")),
        out);
  }

  static ScaleRun.Settings scale(Map<String, String> o, boolean full, Path out) {
    List<Long> sizes = new ArrayList<>();
    for (String s : o.getOrDefault("sizes", full ? "0,1000000,10000000" : "0,100000").split(",")) {
      sizes.add(Long.parseLong(s.strip()));
    }
    return new ScaleRun.Settings(
        sizes,
        Integer.parseInt(o.getOrDefault("scale-consumers", "4")),
        Double.parseDouble(o.getOrDefault("warmup", full ? "20" : "5")),
        Double.parseDouble(o.getOrDefault("scale-seconds", full ? "30" : "10")),
        out);
  }

  static RedisRun.Settings redis(Map<String, String> o, boolean full, Path out) {
    List<RedisSystem> systems = new ArrayList<>();
    if (o.containsKey("redis-systems")) {
      for (String s : o.get("redis-systems").split(",")) {
        systems.add(RedisSystem.byLabel(s.strip()));
      }
    } else {
      systems.addAll(Arrays.asList(RedisSystem.values()));
    }
    List<Integer> threads = new ArrayList<>();
    for (String t : o.getOrDefault("redis-threads", "1,4,8").split(",")) {
      threads.add(Integer.parseInt(t.strip()));
    }
    return new RedisRun.Settings(
        systems,
        threads,
        // Redis answers in tens of microseconds: short windows hold thousands of calls each.
        Double.parseDouble(o.getOrDefault("warmup", full ? "2" : "1")),
        Double.parseDouble(o.getOrDefault("duration", full ? "4" : "3")),
        Integer.parseInt(o.getOrDefault("redis-rounds", full ? "5" : "3")),
        out);
  }

  static KafkaRun.Settings kafka(Map<String, String> o, boolean full, Path out) {
    List<KafkaRun.Case> cases = new ArrayList<>();
    if (o.containsKey("kafka-cases")) {
      for (String c : o.get("kafka-cases").split(",")) {
        cases.add(KafkaRun.Case.parse(c));
      }
    } else {
      cases.addAll(KafkaRun.ALL_CASES);
    }
    return new KafkaRun.Settings(
        cases,
        Integer.parseInt(o.getOrDefault("kafka-records", full ? "6000" : "2000")),
        // A batch loop drains a small topic in well under a second: ten times the records.
        Integer.parseInt(o.getOrDefault("kafka-batch-records", full ? "60000" : "20000")),
        Integer.parseInt(o.getOrDefault("kafka-rounds", full ? "5" : "1")),
        Double.parseDouble(o.getOrDefault("kafka-warmup-fraction", "0.1")),
        Integer.parseInt(o.getOrDefault("kafka-max-poll", "500")),
        KafkaRun.GROUP_JOIN_DELAY_MS,
        Path.of(o.getOrDefault("broker-classpath", KafkaBroker.DEFAULT_CLASSPATH_FILE.toString())),
        out);
  }

  /** {@code --key value} or {@code --key=value} pairs. */
  static Map<String, String> options(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("expected --option, got " + a);
      }
      int eq = a.indexOf('=');
      if (eq > 0) {
        o.put(a.substring(2, eq), a.substring(eq + 1));
      } else if (i + 1 < args.length) {
        o.put(a.substring(2), args[++i]);
      } else {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
    }
    return o;
  }

  /** The run's profile and load settings, one line for the report. */
  static String describe(boolean full, LoadHarness.Settings load) {
    return String.format(
        java.util.Locale.ROOT,
        "%s profile on %s; load: %d round(s) x (%.0f s warm-up + %.0f s measured) per system and"
            + " connection count",
        full ? "full" : "quick",
        java.time.LocalDate.now(java.time.ZoneOffset.UTC),
        load.rounds(),
        load.warmupSeconds(),
        load.measureSeconds());
  }

  static void writeMachine(BenchDatabase db, Path out, String run) throws Exception {
    Runtime rt = Runtime.getRuntime();
    String cpu = "unknown";
    Path cpuinfo = Path.of("/proc/cpuinfo");
    if (Files.isReadable(cpuinfo)) {
      for (String line : Files.readAllLines(cpuinfo)) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).strip();
          break;
        }
      }
    }
    List<List<Object>> rows = new ArrayList<>();
    rows.add(List.of("run", run));
    rows.add(List.of("cpu", cpu));
    rows.add(List.of("cores", rt.availableProcessors()));
    rows.add(
        List.of(
            "os",
            System.getProperty("os.name")
                + " "
                + System.getProperty("os.version")
                + " "
                + System.getProperty("os.arch")));
    rows.add(
        List.of(
            "java",
            System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")));
    rows.add(List.of("jvm max heap MB", rt.maxMemory() / (1024 * 1024)));
    rows.add(
        List.of(
            "jvm args",
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())));
    rows.add(List.of("postgresql", db.describe()));
    Csv.write(out.resolve("machine.csv"), List.of("key", "value"), rows);
  }
}
