package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failure modes seen in a peer library (issue #5, part 7), on one real database: a pool sized
 * exactly to the number of workers must never stall or time out while lease heartbeats, prune and
 * reads run alongside the claims; restarting every consumer (new pools, new store objects) must
 * never make a DONE record claimable again; and a handler that dies after its claim must be retried
 * after the lease, never counted as done. Runs once per database registered in {@link
 * TestDatabases}, named after it.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class PoolAndRestartTest {

  static final String TABLE = "inbox_pool";
  static final String EFFECTS = "pool_effect";

  /**
   * How long a borrower waits for a connection; any wait this long is the failure under test (a
   * borrow that can never be served). Far above what a loaded machine needs for a legitimate
   * borrow, so only a real stall reaches it.
   */
  static final Duration POOL_TIMEOUT = Duration.ofSeconds(30);

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  TestDatabase database() {
    return registered.get();
  }

  /**
   * Waits until {@code condition} holds; the 60 s limit is a backstop that only turns a hang into a
   * failure, far above what the awaited event needs on a loaded machine.
   */
  static void awaitCondition(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " within the 60 s backstop");
      }
      Thread.sleep(5);
    }
  }

  /**
   * Waits until a delivery was answered since {@code seen}, a round is wanted, or the run stops;
   * returns the count of answered deliveries to wait past next time.
   */
  private static int awaitTurn(
      AtomicInteger answered, int seen, AtomicBoolean roundWanted, AtomicBoolean stop) {
    while (answered.get() == seen && !roundWanted.get() && !stop.get()) {
      java.util.concurrent.locks.LockSupport.parkNanos(200_000); // polls a counter, no timing
    }
    return answered.get();
  }

  @BeforeEach
  void freshTables() throws SQLException {
    database().freshStore(TABLE);
    // No unique constraint: a second effect for one id would show as a second row.
    try {
      database().execute("CREATE TABLE " + EFFECTS + " (message_id VARCHAR(255), run VARCHAR(64))");
    } catch (SQLException exists) {
      database().execute("DELETE FROM " + EFFECTS);
    }
  }

  static void insertEffect(Connection c, String messageId, String run) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + EFFECTS + " (message_id, run) VALUES (?, ?)")) {
      ps.setString(1, messageId);
      ps.setString(2, run);
      ps.executeUpdate();
    }
  }

  long effectRows() throws SQLException {
    return database().count("SELECT COUNT(*) FROM " + EFFECTS);
  }

  long distinctEffectIds() throws SQLException {
    return database().count("SELECT COUNT(DISTINCT message_id) FROM " + EFFECTS);
  }

  long effects(String id) throws SQLException {
    return database().count("SELECT COUNT(*) FROM " + EFFECTS + " WHERE message_id = '" + id + "'");
  }

  static RetryPolicy retries() {
    return RetryPolicy.custom()
        .maxAttempts(5)
        .initialDelay(Duration.ofSeconds(1))
        .jitter(0)
        .build();
  }

  /**
   * A pool's DataSource that records every borrow: the longest wait, and every failure with the
   * thread that saw it. The heartbeat swallows (and only logs) its own failures, so this is where a
   * background task's pool timeout becomes visible to the test.
   */
  static final class BorrowLog {
    final AtomicLong longestWaitNanos = new AtomicLong();
    final AtomicInteger borrows = new AtomicInteger();
    final List<String> failures = new CopyOnWriteArrayList<>();

    DataSource wrap(DataSource real) {
      return (DataSource)
          Proxy.newProxyInstance(
              PoolAndRestartTest.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                if (!method.getName().equals("getConnection")) {
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                }
                long t0 = System.nanoTime();
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  failures.add(Thread.currentThread().getName() + ": " + e.getCause());
                  throw e.getCause();
                } finally {
                  borrows.incrementAndGet();
                  longestWaitNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
                }
              });
    }
  }

  /** True if {@code t} or any cause is a pool timeout. */
  static boolean isPoolTimeout(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SQLTransientConnectionException
          || String.valueOf(c.getMessage()).contains("Connection is not available")) {
        return true;
      }
    }
    return false;
  }

  static String threadDump() {
    StringBuilder out = new StringBuilder();
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      out.append(info.toString());
    }
    return out.toString();
  }

  // ---- pool exhaustion ----------------------------------------------------------------------

  @Test
  @Timeout(60)
  @DisplayName("one connection, store not yet used: one-commit and batch consumers need no second")
  void oneConnectionSufficesBeforeTheDialectIsKnown() throws Exception {
    try (HikariDataSource pool = database().newPool(1, null, POOL_TIMEOUT)) {
      // A new store has not detected its dialect: doing so through the pool while a consumer
      // holds the only connection would wait for the pool timeout and fail.
      OneCommitConsumer oneCommit =
          OneCommitConsumer.builder("one-conn", JdbcInboxStore.builder(pool).table(TABLE).build())
              .handler((m, a, conn) -> insertEffect(conn, m.id(), "one-commit"))
              .build();
      assertThat(oneCommit.consume(Message.of("solo-1")).status()).isEqualTo(Status.APPLIED);
      assertThat(oneCommit.consume(Message.of("solo-1")).status()).isEqualTo(Status.DUPLICATE);

      BatchConsumer batch =
          BatchConsumer.builder("one-conn-batch", JdbcInboxStore.builder(pool).table(TABLE).build())
              .handler(
                  (messages, conn) -> {
                    for (Message m : messages) {
                      insertEffect(conn, m.id(), "batch");
                    }
                  })
              .build();
      List<Outcome> outcomes =
          batch.consume(List.of(Message.of("solo-2"), Message.of("solo-3"), Message.of("solo-1")));
      assertThat(outcomes).extracting(Outcome::status).containsOnly(Status.APPLIED);
    }
    assertThat(effects("solo-1")).isEqualTo(2); // one per consumer: they dedup separately
    assertThat(effects("solo-2")).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0} worker(s), pool of {0}")
  @ValueSource(ints = {1, 4})
  @Timeout(240)
  @DisplayName("pool sized to the workers: heartbeat, prune and reads never stall the claims")
  void poolSizedToWorkersNeverStalls(int workers) throws Exception {
    int ids = workers == 1 ? 300 : 1_000;
    int copies = 3;
    String consumer = "pool-" + workers;
    // Old DONE records of another consumer give the pruner real batches to delete meanwhile.
    JdbcInboxStore seeder = JdbcInboxStore.builder(database().dataSource()).table(TABLE).build();
    for (int i = 0; i < 300; i++) {
      seeder.complete(
          seeder.begin(new BeginRequest("old", "old-" + i, Duration.ofMinutes(1), 5, null)).claim(),
          null);
    }
    database().shiftTime(TABLE, Duration.ofDays(2));

    List<String> deliveries = new ArrayList<>();
    for (int i = 0; i < ids; i++) {
      for (int c = 0; c < copies; c++) {
        deliveries.add("p-" + i);
      }
    }
    Collections.shuffle(deliveries, new Random(7));
    Queue<String> queue = new ConcurrentLinkedQueue<>(deliveries);

    BorrowLog borrows = new BorrowLog();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    List<InboxEvent> leaseLost = new CopyOnWriteArrayList<>();
    AtomicInteger extensions = new AtomicInteger();
    // With one writer at a time (SQLite) a renewal waits for the handler's transaction to end,
    // so no handler can wait for one; the heartbeat then runs between the transactions.
    boolean heartbeatGated = workers > 1 && !database().oneWriterAtATime();
    AtomicBoolean gateOnHeartbeat = new AtomicBoolean(heartbeatGated);
    Map<Status, AtomicInteger> statuses = new ConcurrentHashMap<>();
    AtomicLong slowestConsumeNanos = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger prunes = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    // The pruner and the reader run one round per answered delivery (or while the first worker
    // asks for one): unpaced, they took the pool's one connection back round after round and
    // starved the worker (562 866 prune rounds in one 151 s run on MariaDB).
    AtomicInteger answered = new AtomicInteger();
    AtomicBoolean roundWanted = new AtomicBoolean();
    long started = System.nanoTime();

    try (HikariDataSource pool = database().newPool(workers, null, POOL_TIMEOUT)) {
      JdbcInboxStore store =
          JdbcInboxStore.builder(borrows.wrap(pool)).table(TABLE).pruneBatchSize(25).build();
      // The lease is far longer than any handler; the heartbeat ticks many times per handler, so
      // ticks keep landing at the moment a handler returns and its worker completes.
      InboxConfig config =
          InboxConfig.custom()
              .lease(Duration.ofSeconds(20))
              .heartbeatInterval(Duration.ofMillis(3))
              .retryPolicy(retries())
              .build();
      IdempotentConsumer c =
          IdempotentConsumer.builder(consumer, store)
              .effect(
                  store.transactional(
                      (m, attempt, conn) -> {
                        insertEffect(conn, m.id(), Thread.currentThread().getName());
                        if (gateOnHeartbeat.compareAndSet(true, false)) {
                          // One handler (several workers only: with one connection the
                          // heartbeat must wait for it) stays until the heartbeat has renewed
                          // while it ran, so "the heartbeat ran alongside" holds by construction.
                          int before = extensions.get();
                          awaitCondition(() -> extensions.get() > before, "a lease renewal");
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextInt(2, 12));
                      }))
              .config(config)
              .listener(
                  e -> {
                    if (e.kind() == InboxEvent.Kind.LEASE_LOST) {
                      leaseLost.add(e);
                    } else if (e.kind() == InboxEvent.Kind.LEASE_EXTENDED) {
                      extensions.incrementAndGet();
                    }
                  })
              .build();

      ExecutorService threads = Executors.newFixedThreadPool(workers + 2);
      try {
        List<Future<?>> workerFutures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
          boolean first = w == 0;
          workerFutures.add(
              threads.submit(
                  () -> {
                    String id;
                    boolean waitForOthers = first;
                    while ((id = queue.poll()) != null) {
                      if (waitForOthers && statuses.containsKey(Status.APPLIED)) {
                        // Between two of its claims, the first worker waits for a full prune
                        // and read round (the others keep claiming): they ran alongside the
                        // claims by construction, not by how the threads were scheduled.
                        waitForOthers = false;
                        int p0 = prunes.get();
                        int r0 = reads.get();
                        roundWanted.set(true);
                        awaitCondition(
                            () -> prunes.get() > p0 && reads.get() > r0,
                            "a prune and a read round");
                        roundWanted.set(false);
                      }
                      long t0 = System.nanoTime();
                      try {
                        Outcome o = c.consume(Message.of(id));
                        statuses
                            .computeIfAbsent(o.status(), k -> new AtomicInteger())
                            .incrementAndGet();
                        answered.incrementAndGet();
                        if (o.status() == Status.IN_FLIGHT) {
                          queue.add(id); // the broker redelivers later
                        } else if (o.status() != Status.APPLIED && o.status() != Status.DUPLICATE) {
                          errors.add(new AssertionError("unexpected outcome " + o));
                        }
                      } catch (RuntimeException | Error e) {
                        errors.add(e);
                        return null;
                      } finally {
                        slowestConsumeNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
                      }
                    }
                    return null;
                  }));
        }
        Future<?> pruner =
            threads.submit(
                () -> {
                  int seen = -1;
                  while (!stop.get()) {
                    seen = awaitTurn(answered, seen, roundWanted, stop);
                    try {
                      // Only the seeded records are a day past this cut-off; live ones are not.
                      store.prune(store.currentTime().minus(Duration.ofDays(1)));
                      store.prune(consumer, store.currentTime().minus(Duration.ofDays(1)));
                      prunes.incrementAndGet();
                    } catch (RuntimeException e) {
                      errors.add(e);
                      return null;
                    }
                  }
                  return null;
                });
        Future<?> reader =
            threads.submit(
                () -> {
                  Random r = new Random(11);
                  int seen = -1;
                  while (!stop.get()) {
                    seen = awaitTurn(answered, seen, roundWanted, stop);
                    try {
                      store.find(consumer, "p-" + r.nextInt(ids));
                      store.list(RecordState.PROCESSING, consumer, 50);
                      store.list(RecordState.DONE, null, 20);
                      reads.incrementAndGet();
                    } catch (RuntimeException e) {
                      errors.add(e);
                      return null;
                    }
                  }
                  return null;
                });
        try {
          for (Future<?> f : workerFutures) {
            f.get(180, TimeUnit.SECONDS);
          }
        } catch (TimeoutException stuck) {
          throw new AssertionError("workers did not finish; threads:\n" + threadDump(), stuck);
        } finally {
          stop.set(true);
        }
        pruner.get(30, TimeUnit.SECONDS);
        reader.get(30, TimeUnit.SECONDS);
      } finally {
        c.close();
        threads.shutdownNow();
      }
    }
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    System.out.printf(
        "%s pool=%d: %d deliveries in %d ms; %d lease extensions, %d prune rounds, %d read rounds,"
            + " %d borrows, longest borrow %d ms, slowest consume %d ms%n",
        database().name(),
        workers,
        deliveries.size(),
        tookMs,
        extensions.get(),
        prunes.get(),
        reads.get(),
        borrows.borrows.get(),
        borrows.longestWaitNanos.get() / 1_000_000,
        slowestConsumeNanos.get() / 1_000_000);

    assertThat(errors).as("errors of workers, pruner and reader").isEmpty();
    assertThat(borrows.failures).as("failed connection borrows (any thread)").isEmpty();
    assertThat(leaseLost).as("no lease is lost: nobody took anything over").isEmpty();
    // Nobody waited anywhere near the pool timeout: a stall would show here even if it resolved.
    assertThat(Duration.ofNanos(borrows.longestWaitNanos.get())).isLessThan(POOL_TIMEOUT);
    if (heartbeatGated) {
      // One handler waited for a renewal (see gateOnHeartbeat). With one connection, or one
      // writer at a time, the heartbeat can renew only in the gaps between handlers, which a
      // loaded machine may never leave it (SQLite, 4 workers: 0 renewals in one CI run).
      assertThat(extensions.get()).as("the heartbeat really ran").isPositive();
    }
    assertThat(prunes.get()).as("prune rounds (the first worker waited for one)").isPositive();
    assertThat(reads.get()).as("read rounds (the first worker waited for one)").isPositive();
    assertThat(statuses.get(Status.APPLIED)).hasValue(ids);
    assertThat(statuses.get(Status.DUPLICATE)).hasValue(ids * (copies - 1));
    assertThat(effectRows()).as("exactly one business row per id").isEqualTo(ids);
    assertThat(distinctEffectIds()).isEqualTo(ids);
    JdbcInboxStore check = JdbcInboxStore.builder(database().dataSource()).table(TABLE).build();
    assertThat(check.list(RecordState.DONE, "old", 10)).as("the pruner did its work").isEmpty();
    assertThat(check.list(RecordState.DONE, consumer, ids + 10)).hasSize(ids);
    assertThat(check.list(RecordState.PROCESSING, consumer, 10)).isEmpty();
  }

  // ---- restarts -----------------------------------------------------------------------------

  /** One "process": its own pool, store object and consumer, as after a restart. */
  final class Instance implements AutoCloseable {
    final HikariDataSource pool;
    final JdbcInboxStore store;
    final IdempotentConsumer consumer;
    final AtomicInteger handlerRuns = new AtomicInteger();

    Instance(String name, String runLabel, boolean crash) {
      pool = database().newPool(2, null, POOL_TIMEOUT);
      store = JdbcInboxStore.builder(pool).table(TABLE).build();
      consumer =
          IdempotentConsumer.builder(name, store)
              .effect(
                  store.transactional(
                      (m, attempt, conn) -> {
                        handlerRuns.incrementAndGet();
                        insertEffect(conn, m.id(), runLabel + "#" + attempt.number());
                        if (crash) {
                          throw new SimulatedCrash();
                        }
                      }))
              .config(
                  InboxConfig.custom()
                      .lease(Duration.ofSeconds(30))
                      .heartbeatInterval(Duration.ofSeconds(5))
                      .retryPolicy(retries())
                      .build())
              .build();
    }

    @Override
    public void close() {
      consumer.close();
      pool.close();
    }
  }

  /** Thrown by a handler to stand for the process dying after its claim, before DONE. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash() {
      super("simulated process death");
    }
  }

  @Test
  @Timeout(120)
  @DisplayName("restarting every consumer never makes a DONE record claimable again")
  void restartsNeverReopenDoneRecords() throws Exception {
    int n = 200;
    List<Instance> first =
        List.of(new Instance("restart", "gen1-a", false), new Instance("restart", "gen1-b", false));
    try {
      for (int i = 0; i < n; i++) {
        Outcome o = first.get(i % 2).consumer.consume(Message.of("r-" + i));
        assertThat(o.status()).as("r-" + i).isEqualTo(Status.APPLIED);
      }
    } finally {
      first.forEach(Instance::close);
    }
    assertThat(effectRows()).isEqualTo(n);

    for (int generation = 2; generation <= 3; generation++) {
      // Every consumer and pool of the previous generation is gone; the database is all that is
      // left. Time moves on too, though not past any retention (nothing prunes here).
      database().shiftTime(TABLE, Duration.ofHours(1));
      List<Instance> next =
          List.of(
              new Instance("restart", "gen" + generation + "-a", false),
              new Instance("restart", "gen" + generation + "-b", false));
      try {
        for (int i = 0; i < n; i++) {
          Instance in = next.get((i + generation) % 2);
          Outcome o = in.consumer.consume(Message.of("r-" + i));
          assertThat(o.status())
              .as("r-%d after restart %d", i, generation)
              .isEqualTo(Status.DUPLICATE);
          assertThat(o.attempts()).isEqualTo(1);
        }
        for (Instance in : next) {
          assertThat(in.handlerRuns).as("handler runs after restart").hasValue(0);
          assertThat(
                  in.store
                      .begin(new BeginRequest("restart", "r-0", Duration.ofSeconds(30), 5, null))
                      .kind())
              .isEqualTo(Kind.DUPLICATE);
        }
      } finally {
        next.forEach(Instance::close);
      }
      assertThat(effectRows()).as("no new business rows").isEqualTo(n);
    }
    JdbcInboxStore check = JdbcInboxStore.builder(database().dataSource()).table(TABLE).build();
    assertThat(check.list(RecordState.DONE, "restart", n + 10)).hasSize(n);
    assertThat(check.list(RecordState.PROCESSING, "restart", 10)).isEmpty();
  }

  @Test
  @Timeout(120)
  @DisplayName("a handler that dies after the claim is retried after the lease, never done")
  void crashAfterClaimIsRetriedAfterTheLease() throws Exception {
    String id = "crash-1";
    try (Instance doomed = new Instance("crashy", "doomed", true)) {
      assertThatThrownBy(() -> doomed.consumer.consume(Message.of(id)))
          .isInstanceOf(SimulatedCrash.class);
      assertThat(doomed.handlerRuns).hasValue(1);
    }
    JdbcInboxStore check = JdbcInboxStore.builder(database().dataSource()).table(TABLE).build();
    InboxRecord afterCrash = check.find("crashy", id).orElseThrow();
    assertThat(afterCrash.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(afterCrash.attempts()).isEqualTo(1);
    assertThat(effects(id)).as("the dead handler's business write rolled back").isZero();

    try (Instance early = new Instance("crashy", "early", false)) {
      // Inside the lease the record is held, however often it is redelivered or restarted.
      for (int i = 0; i < 3; i++) {
        Outcome o = early.consumer.consume(Message.of(id));
        assertThat(o.status()).isEqualTo(Status.IN_FLIGHT);
        assertThat(o.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
      }
      assertThat(early.handlerRuns).hasValue(0);
    }
    assertThat(check.find("crashy", id)).contains(afterCrash);

    database().shiftTime(TABLE, Duration.ofSeconds(31));
    try (Instance healthy = new Instance("crashy", "healthy", false)) {
      Outcome o = healthy.consumer.consume(Message.of(id));
      assertThat(o.status()).isEqualTo(Status.APPLIED);
      assertThat(o.attempts()).isEqualTo(2);
      assertThat(healthy.handlerRuns).hasValue(1);
      assertThat(healthy.consumer.consume(Message.of(id)).status()).isEqualTo(Status.DUPLICATE);
    }
    InboxRecord done = check.find("crashy", id).orElseThrow();
    assertThat(done.state()).isEqualTo(RecordState.DONE);
    assertThat(done.attempts()).isEqualTo(2);
    assertThat(effects(id)).isEqualTo(1);
    assertThat(
            database()
                .count(
                    "SELECT COUNT(*) FROM "
                        + EFFECTS
                        + " WHERE message_id = '"
                        + id
                        + "' AND run = 'healthy#2'"))
        .isEqualTo(1);
    Instant now = check.currentTime();
    assertThat(done.updatedAt()).isBeforeOrEqualTo(now);
  }
}
