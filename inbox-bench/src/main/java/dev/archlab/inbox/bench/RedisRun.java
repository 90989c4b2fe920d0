package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Redis run: {@link dev.archlab.inbox.redis.RedisInboxStore} against the JDBC store's lease
 * mode on PostgreSQL, against Camel's {@code SpringRedisStringIdempotentRepository} and against a
 * bare {@code SET NX} (the command that repository sends, as a floor), with and without waiting for
 * a replica, at several thread counts, in one run (see {@link RedisSystem} for what each does per
 * message).
 *
 * <p>A real {@code redis-server} (and a replica of it, {@code --replicaof}) and the embedded
 * PostgreSQL (fsync on) are started for the run. Like the JDBC load harness, every thread count
 * runs several rounds; each round empties Redis and the tables and runs every system for a warm-up
 * and a measured window ({@link Workers}), in an order rotated by one per round. Ratios are taken
 * round by round, a system against its baseline in the same round, and the median and range of
 * those paired ratios are reported. Each window checks that every applied message ran its effect
 * exactly once (the tally equals the applied count).
 *
 * <p>Writes {@code redis.csv} (pooled, with ratios) and {@code redis_rounds.csv}. Run through
 * {@link BenchMain} ({@code redis}).
 */
final class RedisRun {

  static final List<String> ROUNDS_HEADER =
      List.of(
          "system", "threads", "round", "position", "messages", "msgs_per_s", "p50_us", "p99_us");

  static final List<String> HEADER =
      List.of(
          "system",
          "threads",
          "rounds",
          "messages",
          "msgs_per_s",
          "p50_us",
          "p99_us",
          "baseline",
          "ratio_median",
          "ratio_min",
          "ratio_max");

  /** The comparisons reported: system, baseline. */
  static final List<RedisSystem[]> COMPARISONS =
      List.of(
          new RedisSystem[] {RedisSystem.REDIS_STORE, RedisSystem.PG_LEASE},
          new RedisSystem[] {RedisSystem.REDIS_STORE, RedisSystem.CAMEL_REDIS},
          new RedisSystem[] {RedisSystem.REDIS_STORE, RedisSystem.SETNX},
          new RedisSystem[] {RedisSystem.REDIS_STORE_WAIT, RedisSystem.REDIS_STORE});

  /** What to run, how long, how often, and where to write. */
  record Settings(
      List<RedisSystem> systems,
      List<Integer> threads,
      double warmupSeconds,
      double measureSeconds,
      int rounds,
      Path outDir) {
    Settings {
      systems = List.copyOf(new LinkedHashSet<>(systems));
      threads = List.copyOf(threads);
      if (systems.isEmpty() || threads.isEmpty()) {
        throw new IllegalArgumentException("no systems or no thread counts to run");
      }
      if (rounds < 1) {
        throw new IllegalArgumentException("rounds must be >= 1, was " + rounds);
      }
    }
  }

  private RedisRun() {}

  /** Runs every system at every thread count; {@code db} serves the PostgreSQL system. */
  static List<List<Object>> run(BenchDatabase db, Settings settings) throws Exception {
    boolean replica = settings.systems().contains(RedisSystem.REDIS_STORE_WAIT);
    List<List<Object>> roundRows = new ArrayList<>();
    List<List<Object>> rows = new ArrayList<>();
    try (BenchRedisServer server = new BenchRedisServer(replica)) {
      RedisClient client = RedisClient.create(server.uri());
      try {
        for (int threads : settings.threads()) {
          Map<RedisSystem, List<Workers.Window>> windows = new EnumMap<>(RedisSystem.class);
          List<RedisSystem> systems = settings.systems();
          for (int round = 0; round < settings.rounds(); round++) {
            for (int i = 0; i < systems.size(); i++) {
              RedisSystem system = systems.get((i + round) % systems.size());
              Workers.Window w = runOne(db, client, server.uri(), system, threads, settings);
              windows.computeIfAbsent(system, k -> new ArrayList<>()).add(w);
              roundRows.add(
                  List.of(
                      system.label(),
                      threads,
                      round + 1,
                      i + 1,
                      w.messages(),
                      w.messagesPerSecond(),
                      Latencies.percentileMicros(w.sortedNanos(), 50),
                      Latencies.percentileMicros(w.sortedNanos(), 99)));
              System.out.printf(
                  Locale.ROOT,
                  "  round %d/%d %-20s %d threads: %8.0f msg/s%n",
                  round + 1,
                  settings.rounds(),
                  system.label(),
                  threads,
                  w.messagesPerSecond());
            }
          }
          rows.addAll(summarise(threads, windows));
        }
      } finally {
        client.shutdown();
      }
    }
    Csv.write(settings.outDir().resolve("redis_rounds.csv"), ROUNDS_HEADER, roundRows);
    Csv.write(settings.outDir().resolve("redis.csv"), HEADER, rows);
    for (List<Object> r : rows) {
      System.out.println(r);
    }
    return rows;
  }

  /** One row per system (pooled), and one per comparison whose both sides ran. */
  static List<List<Object>> summarise(int threads, Map<RedisSystem, List<Workers.Window>> windows) {
    List<List<Object>> rows = new ArrayList<>();
    for (Map.Entry<RedisSystem, List<Workers.Window>> e : windows.entrySet()) {
      rows.add(row(e.getKey(), threads, e.getValue(), null, List.of()));
    }
    for (RedisSystem[] pair : COMPARISONS) {
      List<Workers.Window> ours = windows.get(pair[0]);
      List<Workers.Window> base = windows.get(pair[1]);
      if (ours == null || base == null) {
        continue;
      }
      List<Double> ratios = new ArrayList<>();
      for (int r = 0; r < ours.size(); r++) {
        ratios.add(ours.get(r).messagesPerSecond() / base.get(r).messagesPerSecond());
      }
      rows.add(row(pair[0], threads, ours, pair[1], ratios));
    }
    return rows;
  }

  private static List<Object> row(
      RedisSystem system,
      int threads,
      List<Workers.Window> rounds,
      RedisSystem baseline,
      List<Double> ratios) {
    long messages = 0;
    double seconds = 0;
    List<long[]> samples = new ArrayList<>();
    int total = 0;
    for (Workers.Window w : rounds) {
      messages += w.messages();
      seconds += w.seconds();
      samples.add(w.sortedNanos());
      total += w.sortedNanos().length;
    }
    long[] all = new long[total];
    int at = 0;
    for (long[] s : samples) {
      System.arraycopy(s, 0, all, at, s.length);
      at += s.length;
    }
    java.util.Arrays.sort(all);
    List<Double> sorted = new ArrayList<>(ratios);
    sorted.sort(Double::compare);
    return List.of(
        system.label(),
        threads,
        rounds.size(),
        messages,
        messages / seconds,
        Latencies.percentileMicros(all, 50),
        Latencies.percentileMicros(all, 99),
        baseline == null ? "" : baseline.label(),
        ratios.isEmpty() ? Double.NaN : Targets.median(ratios),
        ratios.isEmpty() ? Double.NaN : sorted.get(0),
        ratios.isEmpty() ? Double.NaN : sorted.get(sorted.size() - 1));
  }

  /** One measured window, after checking every applied message ran its effect once. */
  static Workers.Window runOne(
      BenchDatabase db,
      RedisClient client,
      RedisURI server,
      RedisSystem system,
      int threads,
      Settings settings)
      throws Exception {
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      // FLUSHALL replicates, so the replica starts each window as empty as the master.
      c.sync().flushall();
    }
    db.reset();
    LongAdder effects = new LongAdder();
    // The PostgreSQL system gets a pool of exactly one connection per thread; the others none.
    try (HikariDataSource pool =
        system.needsDatabase() ? db.pool(threads, system.label() + "-" + threads) : null) {
      BenchSystem.Driver driver = system.open(client, server, pool, effects);
      Workers.Window w;
      try {
        w =
            Workers.run(
                (ids, sample) -> driver.deliver(ids),
                threads,
                1,
                system.label() + "-" + threads,
                settings.warmupSeconds(),
                settings.measureSeconds(),
                Workers.MIN_CALLS,
                () -> 0);
      } finally {
        driver.close();
      }
      if (effects.sum() != w.appliedTotal()) {
        throw new IllegalStateException(
            system.label()
                + " applied "
                + w.appliedTotal()
                + " messages but ran the effect "
                + effects.sum()
                + " times");
      }
      return w;
    }
  }
}
