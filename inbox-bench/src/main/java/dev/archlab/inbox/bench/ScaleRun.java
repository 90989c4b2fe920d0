package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scale: how the claim behaves when the dedup table already holds {@code size} DONE rows of the
 * same consumer, and how fast those rows are pruned while consumers keep running.
 *
 * <p>Per size: empty the table, pre-fill it with {@code size} DONE rows 30 days old, {@code VACUUM
 * ANALYZE}; then run lease-mode consumers (claim timed on its own, then business insert and DONE in
 * one transaction) for the claim window; then run them again while one extra connection prunes
 * every row older than 7 days, recording the prune's rows/s and the consumers' latency during it.
 * Writes {@code scale.csv}.
 */
public final class ScaleRun {

  static final List<String> HEADER =
      List.of(
          "size",
          "claim_p50_us",
          "claim_p99_us",
          "claim_msgs_per_s",
          "prune_rows",
          "prune_seconds",
          "prune_rows_per_s",
          "during_prune_p50_us",
          "during_prune_p99_us",
          "during_prune_msgs_per_s");

  private static final String CONSUMER = "scale";
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** Sizes, consumer threads and window lengths. */
  public record Settings(
      List<Long> sizes, int consumers, double warmupSeconds, double claimSeconds, Path outDir) {}

  private ScaleRun() {}

  public static List<List<Object>> run(BenchDatabase db, Settings settings) throws Exception {
    List<Long> sizes = new ArrayList<>(settings.sizes());
    if (!sizes.contains(0L)) {
      sizes.add(0, 0L); // the baseline every other size is compared with
    }
    List<List<Object>> rows = new ArrayList<>();
    for (long size : sizes) {
      rows.add(runSize(db, size, settings));
      Csv.write(settings.outDir().resolve("scale.csv"), HEADER, rows);
    }
    return rows;
  }

  private static List<Object> runSize(BenchDatabase db, long size, Settings settings)
      throws Exception {
    db.reset();
    long t0 = System.nanoTime();
    prefill(db, size);
    System.out.printf(
        Locale.ROOT, "scale: %d rows pre-filled in %.1f s%n", size, (System.nanoTime() - t0) / 1e9);
    try (HikariDataSource pool = db.pool(settings.consumers() + 1, "scale-" + size)) {
      JdbcInboxStore store = JdbcInboxStore.builder(pool).build();
      // Claim window: only the claim is timed, so the number is the lookup-and-insert cost.
      Workers.Window claims =
          Workers.run(
              (ids, sample) -> claimThenComplete(store, pool, ids.get(0), sample),
              settings.consumers(),
              1,
              "claim-" + size,
              settings.warmupSeconds(),
              settings.claimSeconds(),
              Workers.MIN_CALLS,
              () -> 0);
      // Prune window: consumers run (timed end to end) until the prune has finished.
      AtomicLong pruneDone = new AtomicLong();
      long[] pruned = new long[1];
      double[] pruneSeconds = new double[1];
      Throwable[] pruneFailure = new Throwable[1];
      Thread pruner =
          new Thread(
              () -> {
                try {
                  Thread.sleep(500); // let the consumers reach steady state first
                  Instant before = store.currentTime().minus(Duration.ofDays(7));
                  long start = System.nanoTime();
                  pruned[0] = store.prune(before);
                  pruneSeconds[0] = (System.nanoTime() - start) / 1e9;
                } catch (Throwable e) {
                  pruneFailure[0] = e;
                } finally {
                  pruneDone.set(1);
                }
              },
              "bench-pruner");
      pruner.start();
      Workers.Window during =
          Workers.run(
              (ids, sample) -> consumeTimed(store, pool, ids.get(0)),
              settings.consumers(),
              1,
              "prune-" + size,
              0,
              24 * 3600,
              0,
              pruneDone::get);
      pruner.join();
      if (pruneFailure[0] != null) {
        throw new IllegalStateException("prune failed", pruneFailure[0]);
      }
      System.out.printf(
          Locale.ROOT,
          "scale: %d rows: claim p50 %.0f us p99 %.0f us; prune %d rows in %.1f s%n",
          size,
          Latencies.percentileMicros(claims.sortedNanos(), 50),
          Latencies.percentileMicros(claims.sortedNanos(), 99),
          pruned[0],
          pruneSeconds[0]);
      return List.of(
          size,
          Latencies.percentileMicros(claims.sortedNanos(), 50),
          Latencies.percentileMicros(claims.sortedNanos(), 99),
          claims.messagesPerSecond(),
          pruned[0],
          pruneSeconds[0],
          pruneSeconds[0] > 0 ? pruned[0] / pruneSeconds[0] : Double.NaN,
          Latencies.percentileMicros(during.sortedNanos(), 50),
          Latencies.percentileMicros(during.sortedNanos(), 99),
          during.messagesPerSecond());
    }
  }

  /**
   * Inserts {@code size} DONE rows of the benchmark's consumer, 30 days old, in chunks of a million
   * so no single statement holds a huge transaction, then refreshes statistics.
   */
  static void prefill(BenchDatabase db, long size) throws SQLException {
    try (Connection c = db.admin().getConnection()) {
      String sql =
          "INSERT INTO inbox (consumer, message_id, state, attempts, lease_until, created_at,"
              + " updated_at) SELECT ?, 'pre-' || g, 'DONE', 1, NULL,"
              + " now() - INTERVAL '30 days', now() - INTERVAL '30 days'"
              + " FROM generate_series(CAST(? AS BIGINT), CAST(? AS BIGINT)) AS g";
      for (long from = 1; from <= size; from += 1_000_000) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setString(1, CONSUMER);
          ps.setLong(2, from);
          ps.setLong(3, Math.min(size, from + 999_999));
          ps.executeUpdate();
        }
      }
      try (Statement st = c.createStatement()) {
        st.execute("VACUUM ANALYZE inbox");
        st.execute("CHECKPOINT");
      }
    }
  }

  /**
   * The single-message unit with the claim timed apart: {@code begin} (autocommit insert), then the
   * business insert and the fenced DONE in one transaction. The recorded sample is the claim.
   */
  private static int claimThenComplete(
      JdbcInboxStore store, javax.sql.DataSource pool, String id, Workers.Sample sample)
      throws Exception {
    long t0 = System.nanoTime();
    BeginResult begun = store.begin(new BeginRequest(CONSUMER, id, LEASE, 5, null));
    sample.set(System.nanoTime() - t0);
    completeInTransaction(store, pool, begun, id);
    return 1;
  }

  private static int consumeTimed(JdbcInboxStore store, javax.sql.DataSource pool, String id)
      throws Exception {
    BeginResult begun = store.begin(new BeginRequest(CONSUMER, id, LEASE, 5, null));
    completeInTransaction(store, pool, begun, id);
    return 1;
  }

  private static void completeInTransaction(
      JdbcInboxStore store, javax.sql.DataSource pool, BeginResult begun, String id)
      throws SQLException {
    if (!begun.claimed()) {
      throw new IllegalStateException("fresh id " + id + " was not claimed: " + begun.kind());
    }
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        BenchSystem.insertBusiness(c, id);
        store.complete(c, begun.claim(), null);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }
}
