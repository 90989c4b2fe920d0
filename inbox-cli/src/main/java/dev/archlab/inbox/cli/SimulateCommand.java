package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.InboxAdmin;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * An at-least-once delivery load in transactional mode, whose business table has no unique
 * constraint, so a double effect would be visible. Safe to kill at any moment and run again with
 * the same arguments: the rerun resumes and in the end there is one effect row per id.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = {
      "Delivers N distinct ids, each 1+D times in shuffled order, to W concurrent workers."
          + " A fraction P of handler runs dies after the claim, as a crash would. Each applied"
          + " message inserts one row into inbox_sim_effect (no unique constraint) in the same"
          + " transaction as DONE. Redelivers until every id is DONE or DEAD, then checks that"
          + " the effect table holds exactly one row per applied id. Exit 1 if not.",
      "Ids are sim-SEED-KEY-NNNNNNN, KEY derived from --consumer, --table, --messages,"
          + " --duplicates, --seed and --poison: a run with other arguments never shares an id, and"
          + " the check counts only this run's ids.",
      "Safe to kill -9 at any moment: run it again with the same arguments to resume.",
      "A refused login or an unreachable database at start fails at once (exit 1) unless"
          + " --wait-for-db gives the database time; outages after the first connection are"
          + " waited out."
    },
    footer = {
      "",
      "Examples:",
      "  inbox simulate",
      "  inbox simulate --messages 20000 --duplicates 3 --workers 8 --crash-rate 0.1 --lease 1s",
      "  inbox simulate --db jdbc:postgresql://localhost/app --user app --seed 7",
      "  inbox simulate --db jdbc:mysql://localhost/app --user app --wait-for-db 30s --no-progress"
    })
final class SimulateCommand implements Callable<Integer> {

  static final String EFFECTS = "inbox_sim_effect";

  @Mixin DbOptions db;

  @Option(
      names = "--messages",
      defaultValue = "1000",
      description = "Distinct ids (default: ${DEFAULT-VALUE}).")
  int messages;

  @Option(
      names = "--duplicates",
      defaultValue = "2",
      description = "Extra deliveries of each id (default: ${DEFAULT-VALUE}).")
  int duplicates;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description = "Concurrent consumers (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--crash-rate",
      defaultValue = "0.05",
      description =
          "Fraction of handler runs that die after the claim (default: ${DEFAULT-VALUE}).")
  double crashRate;

  @Option(
      names = "--lease",
      defaultValue = "1s",
      converter = Durations.class,
      description = "Lease; a crashed claim is taken over after it (default: ${DEFAULT-VALUE}).")
  Duration lease;

  @Option(
      names = "--max-attempts",
      defaultValue = "10",
      description = "Attempts before DEAD (default: ${DEFAULT-VALUE}).")
  int maxAttempts;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the ids and the delivery order (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--order-seed",
      description =
          "Seed of the delivery order only (default: --seed). Processes sharing --seed but not"
              + " --order-seed race on the same ids in different orders.")
  Long orderSeed;

  @Option(
      names = "--poison",
      defaultValue = "0",
      description =
          "The first P ids are poison: their handler always fails, so they must end DEAD"
              + " (default: ${DEFAULT-VALUE}).")
  int poison;

  @Option(
      names = "--clock-offset",
      defaultValue = "0s",
      converter = SignedDurations.class,
      description =
          "Skew of this process's clock, e.g. -5m or 5m; leases use the database clock, so it"
              + " must change nothing (default: ${DEFAULT-VALUE}).")
  Duration clockOffset;

  @Option(
      names = "--consumer",
      defaultValue = "sim",
      description = "Consumer name (default: ${DEFAULT-VALUE}).")
  String consumer;

  @Option(
      names = "--wait-for-db",
      defaultValue = "0s",
      converter = Durations.class,
      description =
          "At start, keep trying to reach the database for this long (e.g. 30s) instead of"
              + " failing at once; a refused login always fails at once. Outages after the first"
              + " connection are waited out regardless (default: ${DEFAULT-VALUE}).")
  Duration waitForDb;

  @Option(names = "--no-progress", description = "Never draw the progress bar.")
  boolean noProgress;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  /** Stands for the process dying after the claim: not an Exception, so nothing records it. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash() {
      super("simulated crash after the claim", null, false, false);
    }
  }

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    // Every id of this run, and no id of a run with other arguments: see SimulationIds.
    SimulationIds ids = SimulationIds.of(consumer, db.table, messages, duplicates, seed, poison);
    // Fails at once (one line) on a refused login, and on an unreachable database unless
    // --wait-for-db gives it time; from here on the run has reached the database once.
    try (HikariDataSource ds = db.open(workers + 2, waitForDb, err)) {
      JdbcInboxStore store = db.store(ds);
      // The database was there a moment ago: a restart or cut connections now are waited out,
      // as a consumer in production would, instead of giving up.
      DatabaseRetries.untilAvailable(err, "creating the schema", store::createSchemaIfMissing);
      DatabaseRetries.untilAvailable(
          err, "creating " + EFFECTS, () -> createEffectTable(ds, store));

      List<String> order = deliveryOrder(ids);
      DelayQueue<SimulatedDelivery> broker = new DelayQueue<>();
      for (String id : order) {
        broker.add(new SimulatedDelivery(id, 0));
      }
      SimulationTally tally = new SimulationTally();
      AtomicLong outstanding = new AtomicLong(order.size());
      AtomicReference<RuntimeException> refusedMidRun = new AtomicReference<>();
      IdempotentConsumer sim = simulatedConsumer(store, ids, tally);

      Output.Progress progress = new Output.Progress(err, "deliveries", order.size(), !noProgress);
      long started = System.nanoTime();
      runWorkers(
          () ->
              deliverUntilDrained(
                  sim, broker, tally, outstanding, refusedMidRun, progress, order.size(), err));
      progress.finish();
      if (refusedMidRun.get() != null) {
        throw refusedMidRun.get();
      }
      double seconds = (System.nanoTime() - started) / 1e9;

      long[] effects = new long[3];
      long[] states = new long[3];
      DatabaseRetries.untilAvailable(
          err,
          "reading the end state",
          () -> {
            System.arraycopy(countEffects(ds, ids), 0, effects, 0, 3);
            System.arraycopy(
                countStates(ds, store.table().value(), consumer, ids), 0, states, 0, 3);
          });
      String header =
          String.format(
              "simulate: %d ids x %d deliveries, %d workers, crash rate %.2f, lease %s, seed %d,"
                  + " ids %s",
              messages, duplicates + 1, workers, crashRate, Durations.format(lease), seed, ids);
      return tally.report(out, header, messages, poison, effects, states, seconds);
    }
  }

  /** Every delivery of the run (each id once plus its duplicates), in the run's shuffled order. */
  private List<String> deliveryOrder(SimulationIds ids) {
    List<String> order = new ArrayList<>(messages * (duplicates + 1));
    for (int i = 0; i < messages; i++) {
      String id = ids.id(i);
      for (int d = 0; d <= duplicates; d++) {
        order.add(id);
      }
    }
    Collections.shuffle(order, new Random(orderSeed != null ? orderSeed : seed));
    return order;
  }

  /**
   * The consumer under test: transactional mode, an effect row per applied run, planted poison
   * messages that always throw, and crashes after the claim at the configured rate.
   */
  private IdempotentConsumer simulatedConsumer(
      JdbcInboxStore store, SimulationIds ids, SimulationTally tally) {
    return IdempotentConsumer.builder(consumer, store)
        .clock(java.time.Clock.offset(java.time.Clock.systemUTC(), clockOffset))
        .config(
            InboxConfig.custom()
                .lease(lease)
                .retryPolicy(
                    RetryPolicy.custom()
                        .maxAttempts(maxAttempts)
                        .initialDelay(Duration.ofMillis(50))
                        .maxDelay(Duration.ofSeconds(2))
                        .build())
                .build())
        .listener(tally.listener())
        .effect(
            store.transactional(
                (m, attempt, c) -> {
                  if (ids.isPoison(m.id())) {
                    throw new IllegalArgumentException("planted poison message " + m.id());
                  }
                  try (PreparedStatement ps =
                      c.prepareStatement(
                          "INSERT INTO "
                              + EFFECTS
                              + " (message_id, applied_at, worker) VALUES (?,"
                              + " CURRENT_TIMESTAMP, ?)")) {
                    ps.setString(1, m.id());
                    ps.setString(2, Thread.currentThread().getName());
                    ps.executeUpdate();
                  }
                  if (ThreadLocalRandom.current().nextDouble() < crashRate) {
                    throw new SimulatedCrash();
                  }
                }))
        .build();
  }

  /** Runs {@code work} on every worker thread and waits for all of them. */
  private void runWorkers(Callable<Void> work) throws Exception {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            workers,
            r -> {
              Thread t = new Thread(r);
              t.setName("worker-" + t.getId());
              t.setDaemon(true);
              return t;
            });
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      running.add(pool.submit(work));
    }
    for (Future<?> f : running) {
      f.get();
    }
    pool.shutdownNow();
  }

  /**
   * One worker: takes due deliveries from the simulated broker and consumes them until none is
   * outstanding, putting back every delivery that was not acknowledged after its retry hint.
   */
  private Void deliverUntilDrained(
      IdempotentConsumer sim,
      DelayQueue<SimulatedDelivery> broker,
      SimulationTally tally,
      AtomicLong outstanding,
      AtomicReference<RuntimeException> refusedMidRun,
      Output.Progress progress,
      int total,
      PrintWriter err)
      throws InterruptedException {
    while (outstanding.get() > 0) {
      SimulatedDelivery next = broker.poll(50, TimeUnit.MILLISECONDS);
      if (next == null) {
        continue;
      }
      tally.calls.incrementAndGet();
      long redeliverAfterNanos;
      try {
        Outcome o = sim.consume(Message.of(next.id));
        tally.count(o);
        redeliverAfterNanos =
            o.shouldAcknowledge() ? -1 : SimulatedDelivery.redeliveryDelayNanos(o);
      } catch (SimulatedCrash crash) {
        tally.crashes.incrementAndGet();
        redeliverAfterNanos = lease.toNanos();
      } catch (LeaseLostException lost) {
        // The claim was taken over while this run held it (a pause longer than the
        // lease): the fenced completion was refused and the effect rolled back.
        tally.leaseLost.incrementAndGet();
        redeliverAfterNanos = 5_000_000L;
      } catch (StoreUnavailableException unavailable) {
        tally.storeErrors.incrementAndGet();
        if (DbOptions.loginRefused(unavailable)) {
          // A password changed under a running consumer: waiting never helps.
          refusedMidRun.compareAndSet(null, unavailable);
          outstanding.set(0);
          break;
        }
        // One line per error, written as it happens: whoever watches the run (the
        // chaos driver holding a server down) can see that a consumer met it.
        err.println(
            "inbox: store unavailable for "
                + next.id
                + ", redelivering in 500 ms: "
                + InboxCli.oneLine(unavailable));
        redeliverAfterNanos = 500_000_000L;
      } catch (RuntimeException unexpected) {
        // Any other failure must not take the delivery down with this worker: the
        // broker would redeliver it, and the others would wait for it forever.
        tally.storeErrors.incrementAndGet();
        err.println(
            "inbox: delivery of "
                + next.id
                + " failed, redelivering: "
                + unexpected.getClass().getSimpleName()
                + ": "
                + InboxCli.oneLine(unexpected));
        redeliverAfterNanos = 500_000_000L;
      } catch (Error fatal) {
        // The JVM is in trouble: stop every worker so the process exits instead
        // of waiting for deliveries nobody will finish.
        outstanding.set(0);
        throw fatal;
      }
      if (redeliverAfterNanos < 0) {
        progress.update(total - outstanding.decrementAndGet());
      } else {
        broker.add(new SimulatedDelivery(next.id, redeliverAfterNanos));
      }
    }
    return null;
  }

  private void validate() {
    if (poison < 0 || poison > messages) {
      throw new InvalidConfigurationException(
          "--poison must be between 0 and --messages, was " + poison);
    }
    if (messages < 1 || messages > 10_000_000) {
      throw new InvalidConfigurationException(
          "--messages must be between 1 and 10000000, was " + messages);
    }
    if (duplicates < 0 || duplicates > 100) {
      throw new InvalidConfigurationException(
          "--duplicates must be between 0 and 100, was " + duplicates);
    }
    if (workers < 1 || workers > 256) {
      throw new InvalidConfigurationException(
          "--workers must be between 1 and 256, was " + workers);
    }
    if (!(crashRate >= 0 && crashRate < 1)) {
      throw new InvalidConfigurationException(
          "--crash-rate must be at least 0 and below 1, was " + crashRate);
    }
    if (lease.isZero() || lease.isNegative()) {
      throw new InvalidConfigurationException("--lease must be positive, was " + lease);
    }
  }

  private static void createEffectTable(HikariDataSource ds, JdbcInboxStore store)
      throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        // Another simulate process may be writing to it: a catalog read locks nothing, and no
        // DDL is sent for a table that is there (see createSchemaIfMissing).
        if (store.dialect().tableExists(c, null, EFFECTS)) {
          return;
        }
        // No unique constraint on purpose: a double effect must be visible as a second row.
        st.execute(
            "CREATE TABLE IF NOT EXISTS "
                + EFFECTS
                + " (message_id VARCHAR(255) NOT NULL, applied_at TIMESTAMP NOT NULL,"
                + " worker VARCHAR(64) NOT NULL)");
        return;
      } catch (SQLException e) {
        // Several simulate processes starting together race on PostgreSQL's IF NOT EXISTS; the
        // loser sees the winner's table on the next try.
        String state = e.getSQLState();
        boolean race = "23505".equals(state) || "42P07".equals(state);
        if (!race || attempt >= 5) {
          throw e;
        }
      }
    }
  }

  /** Effect rows, distinct ids and the most rows any one id has, for this run's ids. */
  private static long[] countEffects(HikariDataSource ds, SimulationIds ids) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*), COUNT(DISTINCT message_id) FROM "
                    + EFFECTS
                    + " WHERE message_id LIKE ?");
        PreparedStatement most =
            c.prepareStatement(
                "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM "
                    + EFFECTS
                    + " WHERE message_id LIKE ? GROUP BY message_id) AS per_id")) {
      ps.setString(1, ids.likePattern());
      most.setString(1, ids.likePattern());
      long[] out = new long[3];
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        out[0] = rs.getLong(1);
        out[1] = rs.getLong(2);
      }
      try (ResultSet rs = most.executeQuery()) {
        rs.next();
        out[2] = rs.getLong(1);
      }
      return out;
    }
  }

  /**
   * This run's DONE ids, DEAD ids, and DEAD ids that are planted poison, counted by the database: a
   * run may have up to 10 million ids, none of which needs to come into memory.
   */
  private static long[] countStates(
      HikariDataSource ds, String table, String consumer, SimulationIds ids) {
    InboxAdmin admin = JdbcInboxStore.builder(ds).table(table).build().admin();
    Map<RecordState, Long> run = admin.countByState(consumer, ids.prefix(), null);
    // Poison ids are the first P, which sort below the first id that is not poison; any other
    // DEAD id is a message the run gave up on.
    Map<RecordState, Long> poison =
        admin.countByState(consumer, ids.prefix(), ids.firstNonPoison());
    return new long[] {
      run.get(RecordState.DONE), run.get(RecordState.DEAD), poison.get(RecordState.DEAD)
    };
  }
}
