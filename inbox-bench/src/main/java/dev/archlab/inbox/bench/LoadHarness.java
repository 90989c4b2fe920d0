package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JDBC load harness (not JMH: the cost is in the database, and a fixed-duration run with real
 * connection counts is what a user sees). For every connection count, in each of several rounds,
 * and for every {@link BenchSystem}: empty all tables, open a pool of exactly that many
 * connections, run that many threads for a warm-up and then a measured window, and record
 * messages/s and per-message latency. All systems share one embedded PostgreSQL with {@code fsync}
 * on.
 *
 * <p>Rounds guard the ratios against drift on a shared machine (the disk's fsync latency and the
 * neighbours change over minutes): each round runs the systems in a rotated order, so no system is
 * always first or last. A system's result pools its rounds (all measured messages over all measured
 * seconds, percentiles over every latency sample), and every round is kept in {@code
 * load_rounds.csv}; the targets are decided on the median of the per-round ratios (see {@link
 * Targets}).
 *
 * <p>Writes {@code load.csv} and {@code throughput.svg} to the output directory and prints every
 * target of issue #6 that the load run decides, as PASS or MISS. Run through {@link BenchMain}.
 */
public final class LoadHarness {

  /** Columns of {@code load.csv}. */
  static final List<String> HEADER =
      List.of(
          "system",
          "connections",
          "messages",
          "seconds",
          "msgs_per_s",
          "p50_us",
          "p99_us",
          "floor",
          "ratio_to_floor");

  /** Columns of {@code load_rounds.csv}: every round, with the system's place in its order. */
  static final List<String> ROUNDS_HEADER =
      List.of(
          "system",
          "connections",
          "round",
          "position",
          "msgs_per_s",
          "p50_us",
          "p99_us",
          "jvm_cpu_us_per_msg",
          "server_cpu_us_per_msg",
          "commits_per_msg",
          "statements_per_msg");

  /** How long to run, how often, and where to write. */
  public record Settings(
      List<BenchSystem> systems,
      List<Integer> connections,
      double warmupSeconds,
      double measureSeconds,
      int rounds,
      Path outDir) {
    public Settings {
      if (rounds < 1) {
        throw new IllegalArgumentException("rounds must be >= 1, was " + rounds);
      }
      systems = List.copyOf(new LinkedHashSet<>(systems));
    }
  }

  /** One system at one connection count, pooled over the rounds. */
  public record Result(
      BenchSystem system,
      int connections,
      long messages,
      double seconds,
      double messagesPerSecond,
      double p50Micros,
      double p99Micros,
      long applied,
      long businessRows) {}

  private LoadHarness() {}

  /** Runs every system at every connection count on {@code db}. */
  public static List<Result> run(BenchDatabase db, Settings settings) throws Exception {
    List<Result> results = new ArrayList<>();
    List<List<Object>> roundRows = new ArrayList<>();
    List<BenchSystem> systems = settings.systems();
    for (int connections : settings.connections()) {
      Map<BenchSystem, List<Measured>> windows = new EnumMap<>(BenchSystem.class);
      for (int round = 0; round < settings.rounds(); round++) {
        for (int i = 0; i < systems.size(); i++) {
          BenchSystem system = systems.get((i + round) % systems.size());
          Measured m = runOne(db, system, connections, settings);
          windows.computeIfAbsent(system, k -> new ArrayList<>()).add(m);
          CostMeter.Cost cost = m.cost();
          roundRows.add(
              List.of(
                  system.label(),
                  connections,
                  round + 1,
                  i + 1,
                  m.window().messagesPerSecond(),
                  Latencies.percentileMicros(m.window().sortedNanos(), 50),
                  Latencies.percentileMicros(m.window().sortedNanos(), 99),
                  cost.jvmMicrosPerMessage(),
                  cost.serverMicrosPerMessage(),
                  cost.commitsPerMessage(),
                  cost.statementsPerMessage()));
          System.out.printf(
              Locale.ROOT,
              "  round %d/%d %-22s %2d conn: %8.0f msg/s  cpu/msg %5.0f us jvm + %5.0f us server"
                  + "  %.2f commits/msg  %.2f statements/msg  %s%n",
              round + 1,
              settings.rounds(),
              system.label(),
              connections,
              m.window().messagesPerSecond(),
              cost.jvmMicrosPerMessage(),
              cost.serverMicrosPerMessage(),
              cost.commitsPerMessage(),
              cost.statementsPerMessage(),
              m.notes());
        }
      }
      for (BenchSystem system : systems) {
        Result r = pooled(system, connections, windows.get(system));
        results.add(r);
        System.out.printf(
            Locale.ROOT,
            "%-18s %2d conn: %10.0f msg/s  p50 %8.0f us  p99 %8.0f us%n",
            system.label(),
            connections,
            r.messagesPerSecond(),
            r.p50Micros(),
            r.p99Micros());
      }
    }
    write(results, settings.outDir());
    Csv.write(settings.outDir().resolve("load_rounds.csv"), ROUNDS_HEADER, roundRows);
    return results;
  }

  /**
   * One round's window, the business rows it left, and what the whole run (warm-up included) cost
   * per message delivered.
   */
  record Measured(Workers.Window window, long businessRows, CostMeter.Cost cost, String notes) {}

  static Result pooled(BenchSystem system, int connections, List<Measured> rounds) {
    long messages = 0;
    double seconds = 0;
    long applied = 0;
    long businessRows = 0;
    int samples = 0;
    for (Measured m : rounds) {
      messages += m.window().messages();
      seconds += m.window().seconds();
      applied += m.window().appliedTotal();
      businessRows += m.businessRows();
      samples += m.window().sortedNanos().length;
    }
    long[] all = new long[samples];
    int at = 0;
    for (Measured m : rounds) {
      long[] nanos = m.window().sortedNanos();
      System.arraycopy(nanos, 0, all, at, nanos.length);
      at += nanos.length;
    }
    Arrays.sort(all);
    return new Result(
        system,
        connections,
        messages,
        seconds,
        messages / seconds,
        Latencies.percentileMicros(all, 50),
        Latencies.percentileMicros(all, 99),
        applied,
        businessRows);
  }

  /** One measured window of {@code system}, after checking it did the same unit of work. */
  static Measured runOne(BenchDatabase db, BenchSystem system, int connections, Settings settings)
      throws Exception {
    db.reset();
    CostMeter meter = new CostMeter(db);
    CostMeter.Reading before = meter.read();
    AtomicLong delivered = new AtomicLong();
    Workers.Window w;
    long businessRows;
    String notes;
    try (HikariDataSource pool = db.pool(connections, system.label() + "-" + connections)) {
      BenchSystem.Driver driver = system.open(pool);
      try {
        w =
            Workers.run(
                (ids, sample) -> {
                  int applied = driver.deliver(ids);
                  delivered.addAndGet(ids.size());
                  return applied;
                },
                connections,
                system.batchSize(),
                system.label() + "-" + connections,
                settings.warmupSeconds(),
                settings.measureSeconds(),
                Workers.MIN_CALLS,
                () -> 0);
        notes = driver.notes();
      } finally {
        driver.close();
      }
      businessRows = db.count(BenchDatabase.BUSINESS_TABLE);
      // Every applied message inserted exactly one business row and no duplicate was applied:
      // a system that skipped or doubled work would not be doing the same unit of work.
      if (businessRows != w.appliedTotal()) {
        throw new IllegalStateException(
            system.label()
                + " applied "
                + w.appliedTotal()
                + " messages but wrote "
                + businessRows
                + " business rows");
      }
    }
    CostMeter.Cost cost = CostMeter.between(before, meter.read(), delivered.get());
    return new Measured(w, businessRows, cost, notes);
  }

  static void write(List<Result> results, Path outDir) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    for (Result r : results) {
      BenchSystem floor = r.system().floor();
      Double ratio = null;
      if (floor != null) {
        for (Result f : results) {
          if (f.system() == floor && f.connections() == r.connections()) {
            ratio = r.messagesPerSecond() / f.messagesPerSecond();
          }
        }
      }
      rows.add(
          List.of(
              r.system().label(),
              r.connections(),
              r.messages(),
              r.seconds(),
              r.messagesPerSecond(),
              r.p50Micros(),
              r.p99Micros(),
              floor == null ? "" : floor.label(),
              ratio == null ? Double.NaN : ratio));
    }
    Csv.write(outDir.resolve("load.csv"), HEADER, rows);
    List<Map<String, String>> load = Csv.read(outDir.resolve("load.csv"));
    SvgChart.writeThroughput(load, outDir.resolve("throughput.svg"));
  }

  /** Prints the targets this output directory's CSVs decide and writes {@code targets.csv}. */
  static List<Targets.Check> printTargets(Path outDir) throws Exception {
    List<Targets.Check> checks =
        new ArrayList<>(
            Targets.check(
                Csv.read(outDir.resolve("load.csv")),
                Csv.read(outDir.resolve("load_rounds.csv")),
                Csv.read(outDir.resolve("memory.csv")),
                Csv.read(outDir.resolve("scale.csv"))));
    checks.addAll(Targets.kafka(Csv.read(outDir.resolve("kafka_rounds.csv"))));
    List<List<Object>> rows = new ArrayList<>();
    for (Targets.Check c : checks) {
      System.out.printf(Locale.ROOT, "%-8s %-55s %s%n", c.verdict(), c.target(), c.detail());
      rows.add(c.row());
    }
    Csv.write(outDir.resolve("targets.csv"), Targets.HEADER, rows);
    return checks;
  }
}
