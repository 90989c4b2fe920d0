package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JDBC load harness (not JMH: the cost is in the database, and a fixed-duration run with real
 * connection counts is what a user sees). For every connection count and every {@link BenchSystem}:
 * empty all tables, open a pool of exactly that many connections, run that many threads for a
 * warm-up and then a measured window, and record messages/s and per-message latency. All systems
 * share one embedded PostgreSQL with {@code fsync} on.
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

  /** How long to run and where to write. */
  public record Settings(
      List<BenchSystem> systems,
      List<Integer> connections,
      double warmupSeconds,
      double measureSeconds,
      Path outDir) {}

  /** One system at one connection count. */
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
    for (int connections : settings.connections()) {
      for (BenchSystem system : settings.systems()) {
        Result r = runOne(db, system, connections, settings);
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
    return results;
  }

  static Result runOne(BenchDatabase db, BenchSystem system, int connections, Settings settings)
      throws Exception {
    db.reset();
    try (HikariDataSource pool = db.pool(connections, system.label() + "-" + connections)) {
      BenchSystem.Driver driver = system.open(pool);
      Workers.Window w =
          Workers.run(
              (ids, sample) -> driver.deliver(ids),
              connections,
              system.batchSize(),
              system.label() + "-" + connections,
              settings.warmupSeconds(),
              settings.measureSeconds(),
              () -> 0);
      long businessRows = db.count(BenchDatabase.BUSINESS_TABLE);
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
      return new Result(
          system,
          connections,
          w.messages(),
          w.seconds(),
          w.messagesPerSecond(),
          Latencies.percentileMicros(w.sortedNanos(), 50),
          Latencies.percentileMicros(w.sortedNanos(), 99),
          w.appliedTotal(),
          businessRows);
    }
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
        Targets.check(
            Csv.read(outDir.resolve("load.csv")),
            Csv.read(outDir.resolve("memory.csv")),
            Csv.read(outDir.resolve("scale.csv")));
    List<List<Object>> rows = new ArrayList<>();
    for (Targets.Check c : checks) {
      System.out.printf(Locale.ROOT, "%-8s %-55s %s%n", c.verdict(), c.target(), c.detail());
      rows.add(c.row());
    }
    Csv.write(outDir.resolve("targets.csv"), Targets.HEADER, rows);
    return checks;
  }
}
