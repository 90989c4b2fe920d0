package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.jdbc.JdbcInboxStore.BatchCompletion;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.schema.SchemaMissingException;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * What only a database store can show, on one real database: the business write and DONE in one
 * transaction (and its rollback for stale owners and failing handlers), the one-commit mode,
 * batches, the database clock, prune under load, schema handling and error translation. Runs once
 * per database registered in {@link TestDatabases}, named after it.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class JdbcStoreTest {

  static final String TABLE = "inbox_jdbc";
  static final String EFFECTS = "biz_effect";
  static final Duration LEASE = Duration.ofSeconds(30);

  JdbcInboxStore store;

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  TestDatabase database() {
    return registered.get();
  }

  @BeforeEach
  void freshTables() throws SQLException {
    store = database().freshStore(TABLE);
    TestDatabase db = database();
    // The business table has no unique constraint: a double effect would show as two rows.
    try {
      db.execute("CREATE TABLE " + EFFECTS + " (message_id VARCHAR(255), worker VARCHAR(64))");
    } catch (SQLException exists) {
      db.execute("DELETE FROM " + EFFECTS);
    }
  }

  long effects(String messageId) throws SQLException {
    return database()
        .count("SELECT COUNT(*) FROM " + EFFECTS + " WHERE message_id = '" + messageId + "'");
  }

  static void insertEffect(Connection c, String messageId, String worker) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + EFFECTS + " (message_id, worker) VALUES (?, ?)")) {
      ps.setString(1, messageId);
      ps.setString(2, worker);
      ps.executeUpdate();
    }
  }

  static InboxConfig config(int maxAttempts) {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(maxAttempts)
                .initialDelay(Duration.ofSeconds(1))
                .jitter(0)
                .build())
        .build();
  }

  void advance(Duration d) {
    database().shiftTime(TABLE, d);
  }

  // ---- the business write and DONE in one transaction ----------------------------------------

  @Test
  @DisplayName("transactional: business row and DONE commit together")
  void transactionalCommitsTogether() throws Exception {
    IdempotentConsumer c =
        IdempotentConsumer.builder("billing", store)
            .effect(store.transactional((m, a, conn) -> insertEffect(conn, m.id(), "w1")))
            .config(config(5))
            .build();
    assertThat(c.consume(Message.of("tx-1")).status()).isEqualTo(Status.APPLIED);
    assertThat(c.consume(Message.of("tx-1")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(effects("tx-1")).isEqualTo(1);
    assertThat(store.find("billing", "tx-1").orElseThrow().state()).isEqualTo(RecordState.DONE);
  }

  @Test
  @DisplayName("transactional: a handler exception rolls its business rows back")
  void handlerExceptionRollsBack() throws Exception {
    IdempotentConsumer c =
        IdempotentConsumer.builder("billing", store)
            .effect(
                store.transactional(
                    (m, a, conn) -> {
                      insertEffect(conn, m.id(), "w1");
                      throw new IllegalStateException("ledger closed");
                    }))
            .config(config(5))
            .build();
    Outcome failed = c.consume(Message.of("tx-fail"));
    assertThat(failed.status()).isEqualTo(Status.FAILED);
    assertThat(effects("tx-fail")).isZero();
    InboxRecord r = store.find("billing", "tx-fail").orElseThrow();
    assertThat(r.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(r.lastError()).contains("ledger closed");
  }

  @Test
  @DisplayName("transactional: a stale owner's business row is rolled back; one effect")
  void staleOwnersBusinessWriteRollsBack() throws Exception {
    assumeSeveralWriters(
        "the stale owner's open transaction holds the only write lock, so no takeover can happen"
            + " while it runs");
    List<InboxEvent> eventsOfA = new CopyOnWriteArrayList<>();
    IdempotentConsumer b =
        IdempotentConsumer.builder("billing", store)
            .effect(store.transactional((m, a, conn) -> insertEffect(conn, m.id(), "B")))
            .config(config(5))
            .build();
    IdempotentConsumer a =
        IdempotentConsumer.builder("billing", store)
            .effect(
                store.transactional(
                    (m, attempt, conn) -> {
                      insertEffect(conn, m.id(), "A");
                      // A stalls past its lease; B takes over and commits meanwhile.
                      advance(LEASE.plusSeconds(1));
                      assertThat(b.consume(m).status()).isEqualTo(Status.APPLIED);
                    }))
            .config(config(5))
            .listener(eventsOfA::add)
            .build();

    assertThatThrownBy(() -> a.consume(Message.of("tx-stale")))
        .isInstanceOf(LeaseLostException.class);
    assertThat(effects("tx-stale")).isEqualTo(1);
    assertThat(
            database()
                .count(
                    "SELECT COUNT(*) FROM "
                        + EFFECTS
                        + " WHERE message_id = 'tx-stale' AND worker = 'A'"))
        .isZero();
    assertThat(eventsOfA).extracting(InboxEvent::kind).contains(InboxEvent.Kind.LEASE_LOST);
    InboxRecord r = store.find("billing", "tx-stale").orElseThrow();
    assertThat(r.state()).isEqualTo(RecordState.DONE);
    assertThat(r.attempts()).isEqualTo(2);
  }

  @Test
  @Timeout(60)
  @DisplayName("transactional + heartbeat: a whole-process pause loses the lease; one effect")
  void staleOwnerWithHeartbeatRollsBack() throws Exception {
    assumeSeveralWriters(
        "the stale owner's open transaction holds the only write lock, so no takeover can happen"
            + " while it runs");
    // A GC pause stops every thread of the process, the heartbeat's too. The heartbeat runs on a
    // scheduler this test can freeze, so the pause is real for it as well.
    java.util.concurrent.ScheduledExecutorService heartbeat =
        Executors.newSingleThreadScheduledExecutor();
    CountDownLatch resume = new CountDownLatch(1);
    List<InboxEvent> eventsOfA = new CopyOnWriteArrayList<>();
    IdempotentConsumer b =
        IdempotentConsumer.builder("billing", store)
            .effect(store.transactional((m, a, conn) -> insertEffect(conn, m.id(), "B")))
            .config(config(5))
            .build();
    InboxConfig withHeartbeat =
        InboxConfig.custom()
            .lease(LEASE)
            .heartbeatInterval(Duration.ofMillis(50))
            .retryPolicy(config(5).retryPolicy())
            .build();
    IdempotentConsumer a =
        IdempotentConsumer.builder("billing", store)
            .effect(
                store.transactional(
                    (m, attempt, conn) -> {
                      insertEffect(conn, m.id(), "A");
                      // Let the heartbeat renew at least once while A is healthy.
                      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                      while (eventsOfA.stream()
                              .noneMatch(e -> e.kind() == InboxEvent.Kind.LEASE_EXTENDED)
                          && System.nanoTime() < until) {
                        Thread.sleep(10);
                      }
                      // The pause begins: the heartbeat thread freezes, time passes the lease.
                      // Its one thread runs the freeze only after any tick in progress ended, so
                      // once the freeze has started no renewal can follow the jump in time.
                      CountDownLatch frozen = new CountDownLatch(1);
                      heartbeat.submit(
                          () -> {
                            frozen.countDown();
                            resume.await();
                            return null;
                          });
                      assertThat(frozen.await(30, TimeUnit.SECONDS))
                          .as("heartbeat thread frozen (backstop only)")
                          .isTrue();
                      advance(LEASE.plusSeconds(1));
                      assertThat(b.consume(m).status()).isEqualTo(Status.APPLIED);
                      // The pause ends: the heartbeat's next renewal is refused by the fence.
                      resume.countDown();
                      until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                      while (eventsOfA.stream()
                              .noneMatch(e -> e.kind() == InboxEvent.Kind.LEASE_LOST)
                          && System.nanoTime() < until) {
                        Thread.sleep(10);
                      }
                    }))
            .config(withHeartbeat)
            .heartbeatScheduler(heartbeat)
            .listener(eventsOfA::add)
            .build();
    try {
      assertThatThrownBy(() -> a.consume(Message.of("hb-stale")))
          .isInstanceOf(LeaseLostException.class);
    } finally {
      resume.countDown();
      heartbeat.shutdownNow();
    }
    assertThat(eventsOfA).extracting(InboxEvent::kind).contains(InboxEvent.Kind.LEASE_EXTENDED);
    assertThat(eventsOfA)
        .filteredOn(e -> e.kind() == InboxEvent.Kind.LEASE_LOST)
        .as("the loss is reported once, by whichever of heartbeat and completion saw it first")
        .hasSize(1);
    assertThat(effects("hb-stale")).isEqualTo(1);
    assertThat(
            database()
                .count(
                    "SELECT COUNT(*) FROM "
                        + EFFECTS
                        + " WHERE message_id = 'hb-stale' AND worker = 'A'"))
        .isZero();
    InboxRecord r = store.find("billing", "hb-stale").orElseThrow();
    assertThat(r.state()).isEqualTo(RecordState.DONE);
    assertThat(r.attempts()).isEqualTo(2);
  }

  @Test
  @DisplayName("caller-managed transaction: DONE becomes visible only when the caller commits")
  void callerManagedTransaction() throws Exception {
    // With one writer at a time (SQLite) the claim is written in the caller's transaction too, so
    // before the commit other connections see no record at all, and a rollback leaves none.
    boolean claimInCallersTransaction = database().oneWriterAtATime();
    try (Connection callerTx = database().dataSource().getConnection()) {
      callerTx.setAutoCommit(false);
      IdempotentConsumer c =
          IdempotentConsumer.builder("billing", store)
              .effect(
                  store.inCallerTransaction(
                      () -> callerTx, (m, a, conn) -> insertEffect(conn, m.id(), "caller")))
              .config(config(5))
              .build();
      assertThat(c.consume(Message.of("caller-1")).status()).isEqualTo(Status.APPLIED);
      if (claimInCallersTransaction) {
        assertThat(store.find("billing", "caller-1")).isEmpty();
      } else {
        // Not committed yet: other connections still see the claim, not DONE.
        assertThat(store.find("billing", "caller-1").orElseThrow().state())
            .isEqualTo(RecordState.PROCESSING);
      }
      callerTx.commit();
      assertThat(store.find("billing", "caller-1").orElseThrow().state())
          .isEqualTo(RecordState.DONE);
      assertThat(effects("caller-1")).isEqualTo(1);

      assertThat(c.consume(Message.of("caller-2")).status()).isEqualTo(Status.APPLIED);
      callerTx.rollback();
      assertThat(effects("caller-2")).isZero();
      if (claimInCallersTransaction) {
        // The claim rolled back with the rest: the redelivery applies at once, as attempt 1.
        assertThat(store.find("billing", "caller-2")).isEmpty();
        Outcome redelivered = c.consume(Message.of("caller-2"));
        assertThat(redelivered.status()).isEqualTo(Status.APPLIED);
        assertThat(redelivered.attempts()).isEqualTo(1);
      } else {
        // A caller that rolls back leaves the claim to expire; the redelivery then applies.
        assertThat(store.find("billing", "caller-2").orElseThrow().state())
            .isEqualTo(RecordState.PROCESSING);
        advance(LEASE.plusSeconds(1));
        assertThat(c.consume(Message.of("caller-2")).status()).isEqualTo(Status.APPLIED);
      }
      callerTx.commit();
      assertThat(effects("caller-2")).isEqualTo(1);
      callerTx.setAutoCommit(true);
    }
  }

  // ---- one commit
  // --------------------------------------------------------------------------------

  OneCommitConsumer.Builder oneCommit(TransactionalHandler handler) {
    return OneCommitConsumer.builder("ledger", store).handler(handler).config(config(5));
  }

  @Test
  @DisplayName("one-commit: claim, business write and DONE in one transaction")
  void oneCommitApplies() throws Exception {
    OneCommitConsumer c = oneCommit((m, a, conn) -> insertEffect(conn, m.id(), "w")).build();
    assertThat(c.consume(Message.of("oc-1")).status()).isEqualTo(Status.APPLIED);
    assertThat(c.consume(Message.of("oc-1")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(effects("oc-1")).isEqualTo(1);
    InboxRecord r = store.find("ledger", "oc-1").orElseThrow();
    assertThat(r.state()).isEqualTo(RecordState.DONE);
    assertThat(r.attempts()).isEqualTo(1);
  }

  @Test
  @DisplayName("one-commit: a new id can keep a result and extend its lease in the transaction")
  void oneCommitKeepsResultAndExtendsOnANewId() throws Exception {
    AtomicReference<Instant> before = new AtomicReference<>();
    AtomicReference<Instant> extended = new AtomicReference<>();
    OneCommitConsumer c =
        oneCommit(
                (m, a, conn) -> {
                  insertEffect(conn, m.id(), "w");
                  before.set(a.leaseUntil());
                  extended.set(a.extendLease(Duration.ofMinutes(10)));
                  a.keepResult("receipt-7".getBytes(StandardCharsets.UTF_8));
                })
            .build();
    Outcome applied = c.consume(Message.of("oc-result"));
    assertThat(applied.status()).isEqualTo(Status.APPLIED);
    assertThat(new String(applied.result().orElseThrow(), StandardCharsets.UTF_8))
        .isEqualTo("receipt-7");
    assertThat(extended.get()).isAfter(before.get());
    Outcome duplicate = c.consume(Message.of("oc-result"));
    assertThat(duplicate.status()).isEqualTo(Status.DUPLICATE);
    assertThat(new String(duplicate.result().orElseThrow(), StandardCharsets.UTF_8))
        .isEqualTo("receipt-7");
    InboxRecord r = store.find("ledger", "oc-result").orElseThrow();
    assertThat(r.state()).isEqualTo(RecordState.DONE);
    assertThat(r.leaseUntil()).isNull();
    assertThat(effects("oc-result")).isEqualTo(1);
  }

  /** Thrown by a handler to stand for the process dying before the commit. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;
  }

  /**
   * An Error escaping the handler: shows the transaction is rolled back when it is closed without a
   * commit. The session stays alive; {@link #oneCommitSessionKilledMidTransaction} kills it.
   */
  @Test
  @DisplayName("one-commit: an Error thrown mid-transaction rolls back; the redelivery applies")
  void oneCommitCrashLeavesNothing() throws Exception {
    OneCommitConsumer crashing =
        oneCommit(
                (m, a, conn) -> {
                  insertEffect(conn, m.id(), "doomed");
                  throw new SimulatedCrash();
                })
            .build();
    assertThatThrownBy(() -> crashing.consume(Message.of("oc-crash")))
        .isInstanceOf(SimulatedCrash.class);
    assertThat(store.find("ledger", "oc-crash")).isEmpty();
    assertThat(effects("oc-crash")).isZero();

    OneCommitConsumer healthy = oneCommit((m, a, conn) -> insertEffect(conn, m.id(), "w")).build();
    // No lease to wait for: nothing was committed.
    assertThat(healthy.consume(Message.of("oc-crash")).status()).isEqualTo(Status.APPLIED);
    assertThat(effects("oc-crash")).isEqualTo(1);
  }

  @Test
  @Timeout(60)
  @DisplayName("one-commit: a session killed mid-transaction leaves nothing; redelivery applies")
  void oneCommitSessionKilledMidTransaction() throws Exception {
    assumeSeveralWriters("SQLite has no server session to kill");
    // The handler's database session really ends after its business write, as when the process
    // or its connection dies: the server kills it (PostgreSQL pg_terminate_backend, MariaDB KILL,
    // H2 ABORT_SESSION) and rolls its transaction back. The handler returns normally, so the
    // consumer goes on to commit on a dead connection.
    AtomicInteger killed = new AtomicInteger();
    try (HikariDataSource doomedPool = database().newPool(1)) {
      JdbcInboxStore doomedStore = database().storeBuilder(doomedPool).table(TABLE).build();
      OneCommitConsumer dying =
          OneCommitConsumer.builder("ledger", doomedStore)
              .handler(
                  (m, a, conn) -> {
                    insertEffect(conn, m.id(), "killed");
                    database().killSessionOf(conn);
                    killed.incrementAndGet();
                  })
              .config(config(5))
              .build();
      assertThatThrownBy(() -> dying.consume(Message.of("oc-killed")))
          .isInstanceOfSatisfying(
              StoreUnavailableException.class,
              e -> assertThat(e.reason()).isEqualTo(StoreUnavailableException.Reason.UNREACHABLE))
          .hasMessageContaining("unreachable");
    }
    assertThat(killed).hasValue(1);
    assertThat(store.find("ledger", "oc-killed")).as("no dedup record").isEmpty();
    assertThat(effects("oc-killed")).as("no business row").isZero();

    // No lease to wait out and no time moved: the very next delivery applies.
    OneCommitConsumer healthy = oneCommit((m, a, conn) -> insertEffect(conn, m.id(), "w")).build();
    Outcome redelivered = healthy.consume(Message.of("oc-killed"));
    assertThat(redelivered.status()).isEqualTo(Status.APPLIED);
    assertThat(redelivered.attempts()).isEqualTo(1);
    assertThat(effects("oc-killed")).isEqualTo(1);
  }

  @Test
  @DisplayName("one-commit: a failure is recorded with backoff, then retried; poison ends DEAD")
  void oneCommitFailureAndPoison() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    OneCommitConsumer c =
        oneCommit(
                (m, a, conn) -> {
                  insertEffect(conn, m.id(), "w");
                  if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("first try fails");
                  }
                })
            .build();
    Outcome first = c.consume(Message.of("oc-retry"));
    assertThat(first.status()).isEqualTo(Status.FAILED);
    assertThat(first.attempts()).isEqualTo(1);
    assertThat(effects("oc-retry")).isZero();
    assertThat(c.consume(Message.of("oc-retry")).status()).isEqualTo(Status.IN_FLIGHT);
    advance(Duration.ofSeconds(2));
    Outcome second = c.consume(Message.of("oc-retry"));
    assertThat(second.status()).isEqualTo(Status.APPLIED);
    assertThat(second.attempts()).isEqualTo(2);
    assertThat(effects("oc-retry")).isEqualTo(1);

    AtomicInteger deadLetters = new AtomicInteger();
    OneCommitConsumer poison =
        OneCommitConsumer.builder("ledger", store)
            .handler(
                (m, a, conn) -> {
                  insertEffect(conn, m.id(), "w");
                  throw new IllegalArgumentException("unparseable");
                })
            .config(config(2))
            .deadLetterHandler((m, r) -> deadLetters.incrementAndGet())
            .build();
    assertThat(poison.consume(Message.of("oc-poison")).status()).isEqualTo(Status.FAILED);
    advance(Duration.ofSeconds(2));
    assertThat(poison.consume(Message.of("oc-poison")).status()).isEqualTo(Status.DEAD);
    assertThat(poison.consume(Message.of("oc-poison")).status()).isEqualTo(Status.DEAD);
    assertThat(deadLetters).hasValue(1);
    assertThat(effects("oc-poison")).isZero();
  }

  @Test
  @Timeout(60)
  @DisplayName("one-commit: concurrent duplicates wait on the key; one effect")
  void oneCommitConcurrentDuplicates() throws Exception {
    assumeSeveralWriters(
        "one-commit lockTimeout(...) cannot be bounded per claim: a transaction waits for the write"
            + " lock at BEGIN, bounded by the busy timeout");
    AtomicInteger calls = new AtomicInteger();
    OneCommitConsumer c =
        oneCommit(
                (m, a, conn) -> {
                  calls.incrementAndGet();
                  insertEffect(conn, m.id(), Thread.currentThread().getName());
                  Thread.sleep(100);
                })
            .lockTimeout(Duration.ofSeconds(20))
            .build();
    int workers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return c.consume(Message.of("oc-race"));
                }));
      }
      start.countDown();
      List<Status> statuses = new ArrayList<>();
      for (Future<Outcome> f : futures) {
        statuses.add(f.get(50, TimeUnit.SECONDS).status());
      }
      assertThat(statuses).filteredOn(s -> s == Status.APPLIED).hasSize(1);
      assertThat(statuses).allMatch(s -> s == Status.APPLIED || s == Status.DUPLICATE);
    } finally {
      pool.shutdownNow();
    }
    assertThat(calls).hasValue(1);
    assertThat(effects("oc-race")).isEqualTo(1);
  }

  /** How long a held row waits for a claim that never returns before the test fails. */
  static final Duration BACKSTOP = Duration.ofSeconds(40);

  @ParameterizedTest(name = "lock limit set by lockTimeout(...): {0}")
  @ValueSource(booleans = {false, true})
  @Timeout(120)
  @DisplayName("one-commit: a duplicate that waits past the lock timeout reports IN_FLIGHT")
  void oneCommitLockTimeout(boolean perTransaction) throws Exception {
    assumeSeveralWriters(
        "one-commit lockTimeout(...) cannot be bounded per claim: a transaction waits for the write"
            + " lock at BEGIN, bounded by the busy timeout");
    // Either the pool's connections carry a 300 ms limit, or lockTimeout(300 ms) sets it for the
    // claim (on a session whose own limit is 10 min). The servers' defaults are far longer than
    // the holder's backstop too (PostgreSQL waits forever, MariaDB and H2 wait 10 min here), so
    // if the configured limit were ignored the claim would block until the holder lets go. The
    // holder lets go only after the claim has returned: IN_FLIGHT while the row is still held
    // proves the limit applied, by ordering alone. MySQL/MariaDB count whole seconds.
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    OneCommitConsumer slow =
        oneCommit(
                (m, a, conn) -> {
                  insertEffect(conn, m.id(), "slow");
                  holding.countDown();
                  // The backstop only turns a claim that never returns into a failure.
                  release.await(BACKSTOP.toSeconds(), TimeUnit.SECONDS);
                })
            .build();
    String lockSql =
        database().lockTimeoutSql(perTransaction ? Duration.ofMinutes(10).toMillis() : 300);
    // One connection, so the session whose limit is read before and after is the one that waited.
    try (HikariDataSource impatientPool = database().newPool(1, lockSql)) {
      String sessionLimit;
      try (Connection c = impatientPool.getConnection()) {
        sessionLimit = database().sessionLockTimeout(c);
      }
      JdbcInboxStore impatientStore = database().storeBuilder(impatientPool).table(TABLE).build();
      OneCommitConsumer.Builder builder =
          OneCommitConsumer.builder("ledger", impatientStore)
              .handler((m, a, conn) -> insertEffect(conn, m.id(), "impatient"))
              .config(config(5));
      if (perTransaction) {
        builder.lockTimeout(Duration.ofMillis(300));
      }
      OneCommitConsumer impatient = builder.build();
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<Outcome> first = pool.submit(() -> slow.consume(Message.of("oc-lock")));
        assertThat(holding.await(BACKSTOP.toSeconds(), TimeUnit.SECONDS)).isTrue();
        Outcome waited = impatient.consume(Message.of("oc-lock"));
        boolean stillHeld = !first.isDone();
        assertThat(stillHeld).as("the holder had not let go when the claim returned").isTrue();
        // Had the holder committed first, the claim would have read DONE and answered DUPLICATE.
        assertThat(waited.status()).isEqualTo(Status.IN_FLIGHT);
        if (perTransaction) {
          assertThat(waited.retryAfter()).isEqualTo(Duration.ofMillis(300));
        }
        release.countDown();
        assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(Status.APPLIED);
      } finally {
        release.countDown();
        pool.shutdownNow();
      }
      assertThat(impatient.consume(Message.of("oc-lock")).status()).isEqualTo(Status.DUPLICATE);
      try (Connection c = impatientPool.getConnection()) {
        assertThat(database().sessionLockTimeout(c))
            .as("the session's own lock limit is back after the claims")
            .isEqualTo(sessionLimit);
      }
    }
    assertThat(effects("oc-lock")).isEqualTo(1);
  }

  @Test
  @DisplayName("countByState counts one consumer's ids by prefix, LIKE wildcards taken literally")
  void countByStateCountsOneRunOfIds() {
    store.complete(begin("run", "r_1-0").claim(), null);
    store.complete(begin("run", "r_1-1").claim(), null);
    store.markDead(begin("run", "r_1-2").claim(), "poison");
    store.markDead(begin("run", "r_1-3").claim(), "poison");
    begin("run", "r_1-4");
    // '_' and '%' in the prefix must not match any character.
    store.complete(begin("run", "rX1-0").claim(), null);
    store.markDead(begin("run", "r%1-0").claim(), "poison");
    // Another consumer's record with a matching id.
    store.complete(begin("other", "r_1-5").claim(), null);
    InboxAdmin admin = store.admin();
    assertThat(admin.countByState("run", "r_1-", null))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(RecordState.PROCESSING, 1L, RecordState.DONE, 2L, RecordState.DEAD, 2L));
    assertThat(admin.countByState("run", "r_1-", "r_1-3"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(RecordState.PROCESSING, 0L, RecordState.DONE, 2L, RecordState.DEAD, 1L));
    assertThat(admin.countByState("run", "r%1-", null))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(RecordState.PROCESSING, 0L, RecordState.DONE, 0L, RecordState.DEAD, 1L));
    assertThat(admin.countByState("run", "none-", null).values()).containsOnly(0L);
  }

  // ---- batches
  // -----------------------------------------------------------------------------------

  @Test
  @DisplayName("batch begin answers per id exactly as single begins do")
  void batchBeginMatchesSingleBegins() {
    // The same history for two consumers: one is asked by batch, the other one id at a time.
    for (String consumer : List.of("single", "batch")) {
      store.complete(begin(consumer, "done").claim(), null);
      store.markDead(begin(consumer, "dead").claim(), "poison");
      begin(consumer, "live");
      begin(consumer, "expired");
      store.fail(begin(consumer, "waiting").claim(), "retry later", Duration.ofHours(1));
    }
    advance(LEASE.plusSeconds(1));
    for (String consumer : List.of("single", "batch")) {
      // "live" gets a fresh lease after the move; "expired" keeps its old one.
      store.extend(store.find(consumer, "live").orElseThrow().toClaim(), LEASE);
    }
    List<String> ids =
        List.of("new-1", "done", "dead", "live", "expired", "waiting", "new-2", "new-1");
    List<BeginResult> batch = new ArrayList<>(store.beginBatch(requests("batch", ids)));
    List<Kind> single = new ArrayList<>();
    for (String id : ids) {
      single.add(begin("single", id).kind());
    }
    assertThat(batch).extracting(BeginResult::kind).containsExactlyElementsOf(single);
    assertThat(single)
        .containsExactly(
            Kind.CLAIMED,
            Kind.DUPLICATE,
            Kind.DEAD,
            Kind.IN_FLIGHT,
            Kind.TAKEN_OVER,
            Kind.IN_FLIGHT,
            Kind.CLAIMED,
            Kind.IN_FLIGHT);
    assertThat(batch.get(4).record().attempts()).isEqualTo(2);
  }

  @Test
  @DisplayName("batch complete: current claims DONE, stale and unknown ones refused, per id")
  void batchCompleteClassifiesEachClaim() {
    Claim current = begin("batch", "c-1").claim();
    Claim stale = begin("batch", "c-2").claim();
    Claim ghost = new Claim("batch", "c-ghost", 1, Instant.now());
    Claim other = begin("batch", "c-3").claim();
    advance(LEASE.plusSeconds(1));
    Claim takenOver = begin("batch", "c-2").claim();
    assertThat(takenOver.fencingToken()).isEqualTo(2);
    current = store.extend(current, LEASE);
    other = store.extend(other, LEASE);

    List<BatchCompletion> results = store.completeBatch(List.of(current, stale, ghost, other));
    assertThat(results.get(0).succeeded()).isTrue();
    assertThat(results.get(0).record().state()).isEqualTo(RecordState.DONE);
    assertThat(results.get(1).error()).isInstanceOf(LeaseLostException.class);
    assertThat(results.get(2).error()).isInstanceOf(UnknownClaimException.class);
    assertThat(results.get(3).succeeded()).isTrue();
    assertThat(store.find("batch", "c-2").orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
    // Completing the same claims again is refused, like a second single complete.
    assertThat(store.completeBatch(List.of(current)).get(0).error())
        .isInstanceOf(LeaseLostException.class);
  }

  @Test
  @DisplayName("batch consumer: only new messages reach the handler; all effects in one commit")
  void batchConsumer() throws Exception {
    List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batcher", store)
            .config(config(5))
            .handler(
                (messages, conn) -> {
                  batchSizes.add(messages.size());
                  try (PreparedStatement ps =
                      conn.prepareStatement(
                          "INSERT INTO " + EFFECTS + " (message_id, worker) VALUES (?, 'batch')")) {
                    for (Message m : messages) {
                      ps.setString(1, m.id());
                      ps.addBatch();
                    }
                    ps.executeBatch();
                  }
                })
            .build();
    List<Message> first = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      first.add(Message.of("b-" + i));
    }
    assertThat(c.consume(first)).extracting(Outcome::status).containsOnly(Status.APPLIED);
    List<Message> second = new ArrayList<>(first.subList(50, 100));
    for (int i = 100; i < 130; i++) {
      second.add(Message.of("b-" + i));
    }
    List<Outcome> outcomes = c.consume(second);
    assertThat(outcomes.subList(0, 50)).extracting(Outcome::status).containsOnly(Status.DUPLICATE);
    assertThat(outcomes.subList(50, 80)).extracting(Outcome::status).containsOnly(Status.APPLIED);
    assertThat(batchSizes).containsExactly(100, 30);
    assertThat(database().count("SELECT COUNT(*) FROM " + EFFECTS)).isEqualTo(130);
    assertThat(database().count("SELECT COUNT(DISTINCT message_id) FROM " + EFFECTS))
        .isEqualTo(130);
  }

  @Test
  @DisplayName("batch consumer: a failing handler commits nothing and every message fails")
  void batchConsumerFailure() throws Exception {
    BatchConsumer c =
        BatchConsumer.builder("batcher", store)
            .config(config(5))
            .handler(
                (messages, conn) -> {
                  for (Message m : messages) {
                    insertEffect(conn, m.id(), "batch");
                  }
                  throw new IllegalStateException("downstream schema changed");
                })
            .build();
    List<Outcome> outcomes =
        c.consume(List.of(Message.of("bf-1"), Message.of("bf-2"), Message.of("bf-3")));
    assertThat(outcomes).extracting(Outcome::status).containsOnly(Status.FAILED);
    assertThat(database().count("SELECT COUNT(*) FROM " + EFFECTS)).isZero();
    assertThat(store.find("batcher", "bf-2").orElseThrow().lastError())
        .contains("downstream schema changed");
  }

  BeginResult begin(String consumer, String id) {
    return store.begin(new BeginRequest(consumer, id, LEASE, 5, null));
  }

  static List<BeginRequest> requests(String consumer, List<String> ids) {
    List<BeginRequest> out = new ArrayList<>();
    for (String id : ids) {
      out.add(new BeginRequest(consumer, id, LEASE, 5, null));
    }
    return out;
  }

  // ---- the database clock ----------------------------------------------------------------------

  /**
   * Shows only that a consumer's injected clock plays no part in leases: it time-stamps events and
   * nothing else. It cannot show that the store ignores the JVM clock (the JVM and the database
   * share this host's clock); {@code StoreUsesNoJvmClockTest} checks that in the bytecode, and the
   * MariaDB store test moves a session's database clock to show that leases follow it.
   */
  @Test
  @DisplayName("a consumer's injected clock, hours off, is used for events only, never for leases")
  void injectedConsumerClockIsNotUsedForLeases() {
    assertThat(begin("clock", "skew-1").claimed()).isTrue();
    for (Duration skew : List.of(Duration.ofHours(5), Duration.ofHours(-5))) {
      List<InboxEvent> events = new CopyOnWriteArrayList<>();
      Clock skewed = Clock.offset(Clock.systemUTC(), skew);
      IdempotentConsumer thief =
          IdempotentConsumer.builder("clock", store)
              .handler((m, a) -> {})
              .config(config(5))
              .clock(skewed)
              .listener(events::add)
              .build();
      Instant before = Instant.now();
      assertThat(thief.consume(Message.of("skew-1")).status()).isEqualTo(Status.IN_FLIGHT);
      Instant after = Instant.now();
      // The skewed clock was in use, for its events only: bracketed by reads before and after,
      // so how long the call took does not matter.
      assertThat(events.get(0).at()).isBetween(before.plus(skew), after.plus(skew));
    }
    InboxRecord r = store.find("clock", "skew-1").orElseThrow();
    Instant dbNow = store.currentTime();
    assertThat(r.leaseUntil()).isBetween(dbNow, dbNow.plus(LEASE).plusSeconds(5));
    assertThat(r.attempts()).isEqualTo(1);
  }

  @Test
  @DisplayName("sessions in a far time zone see the same leases")
  void sessionTimeZoneDoesNotMatter() {
    try (HikariDataSource farPool = database().newPool(2, database().farTimeZoneSql())) {
      JdbcInboxStore far = database().storeBuilder(farPool).table(TABLE).build();
      BeginResult claimed = begin("tz", "tz-1");
      BeginResult seenFromFar = far.begin(new BeginRequest("tz", "tz-1", LEASE, 5, null));
      assertThat(seenFromFar.kind()).isEqualTo(Kind.IN_FLIGHT);
      assertThat(seenFromFar.record().leaseUntil()).isEqualTo(claimed.record().leaseUntil());
      // Bracketed by reads of the other session before and after, so no stall in between can
      // fail it; a session time zone that leaked in would be hours outside. The 1 s of slack
      // only covers timestamp precision (MariaDB's TIMESTAMP holds whole seconds).
      Instant before = store.currentTime();
      Instant farNow = far.currentTime();
      Instant after = store.currentTime();
      assertThat(farNow).isBetween(before.minusSeconds(1), after.plusSeconds(1));
      far.complete(claimed.claim(), null);
      assertThat(store.find("tz", "tz-1").orElseThrow().state()).isEqualTo(RecordState.DONE);
      advance(LEASE.plusSeconds(1));
      Instant beforeClaim = store.currentTime();
      BeginResult farClaim = far.begin(new BeginRequest("tz", "tz-2", LEASE, 5, null));
      Instant afterClaim = store.currentTime();
      assertThat(begin("tz", "tz-2").kind()).isEqualTo(Kind.IN_FLIGHT);
      assertThat(farClaim.record().createdAt())
          .isBetween(beforeClaim.minusSeconds(1), afterClaim.plusSeconds(1));
    }
  }

  @Test
  @Timeout(60)
  @DisplayName("N connections racing for one id: exactly one claim, twenty rounds")
  void crossConnectionRace() throws Exception {
    int connections = 8;
    try (HikariDataSource pool = database().newPool(connections)) {
      JdbcInboxStore racer = database().storeBuilder(pool).table(TABLE).build();
      ExecutorService threads = Executors.newFixedThreadPool(connections);
      try {
        for (int round = 0; round < 20; round++) {
          String id = "race-" + round;
          CountDownLatch start = new CountDownLatch(1);
          List<Future<BeginResult>> futures = new ArrayList<>();
          for (int i = 0; i < connections; i++) {
            futures.add(
                threads.submit(
                    () -> {
                      start.await();
                      return racer.begin(new BeginRequest("race", id, LEASE, 5, null));
                    }));
          }
          start.countDown();
          int claims = 0;
          for (Future<BeginResult> f : futures) {
            if (f.get(30, TimeUnit.SECONDS).claimed()) {
              claims++;
            }
          }
          assertThat(claims).as(id).isEqualTo(1);
        }
      } finally {
        threads.shutdownNow();
      }
    }
  }

  // ---- prune under load -----------------------------------------------------------------------

  /**
   * Reports the test as skipped, with {@code why}, on a database with one writer at a time, where
   * the situation it builds (a second writer while a transaction is open) cannot arise.
   */
  void assumeSeveralWriters(String why) {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        database().oneWriterAtATime(), database().name() + ": " + why);
  }

  /**
   * An even id of consumer 'old' whose record is still there ({@code present}) or already pruned;
   * picked at random until one is found (half of them are either, so a few tries).
   */
  private static String oldId(
      JdbcInboxStore store, java.util.Random pick, int rows, boolean present) {
    for (int tries = 0; tries < 10_000; tries++) {
      // Even ids only: the free-running claimer redelivers odd ones, so none of these changes
      // between this check and the redelivery that follows it.
      String id = "old-" + (2 + 2 * pick.nextInt(rows / 2));
      if (store.find("old", id).isPresent() == present) {
        return id;
      }
    }
    throw new AssertionError("no " + (present ? "remaining" : "pruned") + " old id in 10000 tries");
  }

  @Test
  @Timeout(600)
  @DisplayName("prune of many DONE rows runs in short batches while claims continue")
  void pruneWhileClaiming() throws Exception {
    int rows = database().pruneRows();
    int batchSize = rows / 100; // 10 000 for a million rows: at least 100 batches
    database().fillDone(TABLE, rows);
    JdbcInboxStore batched =
        database()
            .storeBuilder(database().dataSource())
            .table(TABLE)
            .pruneBatchSize(batchSize)
            .build();
    // The old ids are redelivered while they are pruned: each is DUPLICATE if its record is still
    // there, or APPLIED again if the prune already took it (the designed edge of the window).
    IdempotentConsumer redelivery =
        IdempotentConsumer.builder("old", batched).handler((m, a) -> {}).config(config(5)).build();
    AtomicLong maxClaimNanos = new AtomicLong();
    AtomicInteger claimsDuringPrune = new AtomicInteger();
    AtomicInteger oldDuplicate = new AtomicInteger();
    AtomicInteger oldAppliedAgain = new AtomicInteger();
    List<Long> totals = new CopyOnWriteArrayList<>();
    Instant before = batched.currentTime().minus(Duration.ofHours(1));
    ExecutorService claimer = Executors.newSingleThreadExecutor();
    CountDownLatch pruneDone = new CountDownLatch(1);
    CountDownLatch halfWay = new CountDownLatch(1);
    AtomicInteger betweenBatches = new AtomicInteger();
    try {
      Future<?> claims =
          claimer.submit(
              () -> {
                java.util.Random random = new java.util.Random(42);
                java.util.Set<Integer> redelivered = new java.util.HashSet<>();
                int i = 0;
                while (pruneDone.getCount() > 0) {
                  long t0 = System.nanoTime();
                  BeginResult r =
                      batched.begin(new BeginRequest("live", "l-" + i++, LEASE, 5, null));
                  batched.complete(r.claim(), null);
                  // Odd ids only: the even ones are the half-way check's (see below).
                  int old = 1 + 2 * random.nextInt(rows / 2);
                  // Every fifth round, so the claimer does not slow the prune down much more.
                  if (i % 5 == 0 && redelivered.add(old)) {
                    Status status = redelivery.consume(Message.of("old-" + old)).status();
                    if (status == Status.DUPLICATE) {
                      oldDuplicate.incrementAndGet();
                    } else if (status == Status.APPLIED) {
                      oldAppliedAgain.incrementAndGet();
                    } else {
                      throw new AssertionError(
                          "old-" + old + " redelivered during prune: " + status);
                    }
                  }
                  long took = System.nanoTime() - t0;
                  maxClaimNanos.accumulateAndGet(took, Math::max);
                  claimsDuringPrune.incrementAndGet();
                }
                return null;
              });
      // Between two batches the prune is parked in its progress callback, which checks on this
      // thread what must hold at that moment: a claim completes (the prune holds no lock across
      // batches), and, half-way, an old id still there is DUPLICATE and one already pruned is
      // APPLIED again. Built into the run, so the checks happen however the threads are scheduled.
      java.util.Random pick = new java.util.Random(7);
      long t0 = System.nanoTime();
      long pruned =
          batched
              .admin()
              .prune(
                  null,
                  before,
                  total -> {
                    totals.add(total);
                    if (total >= rows) {
                      return;
                    }
                    int batch = totals.size();
                    if (batch % 10 == 1) {
                      BeginResult r =
                          batched.begin(new BeginRequest("between", "b-" + batch, LEASE, 5, null));
                      assertThat(r.claimed())
                          .as("claim between batches %d and %d", batch, batch + 1)
                          .isTrue();
                      batched.complete(r.claim(), null);
                      betweenBatches.incrementAndGet();
                    }
                    if (total >= rows / 2 && halfWay.getCount() > 0) {
                      halfWay.countDown();
                      String kept = oldId(batched, pick, rows, true);
                      String gone = oldId(batched, pick, rows, false);
                      assertThat(redelivery.consume(Message.of(kept)).status())
                          .as("%s, not pruned yet, redelivered", kept)
                          .isEqualTo(Status.DUPLICATE);
                      assertThat(redelivery.consume(Message.of(gone)).status())
                          .as("%s, already pruned, redelivered", gone)
                          .isEqualTo(Status.APPLIED);
                    }
                  });
      long pruneNanos = System.nanoTime() - t0;
      pruneDone.countDown();
      claims.get(60, TimeUnit.SECONDS);
      assertThat(pruned).isEqualTo(rows);

      // The progress callback gets the running total after every DELETE statement.
      List<Long> batches = new ArrayList<>();
      long previous = 0;
      for (long total : totals) {
        batches.add(total - previous);
        previous = total;
      }
      assertThat(previous).isEqualTo(pruned);
      assertThat(batches).as("rows per statement").allMatch(b -> b >= 0 && b <= batchSize);
      assertThat(batches.stream().filter(b -> b > 0).count())
          .as("non-empty batches")
          .isGreaterThanOrEqualTo(100);
      // Every statement but the last deleted a full batch; the last found fewer and stopped.
      assertThat(batches.subList(0, batches.size() - 1)).allMatch(b -> b == batchSize);
      assertThat(batches.get(batches.size() - 1)).isLessThan(batchSize);

      // At least 100 batches, so at least 10 claims completed between two of them, and the
      // half-way check ran; how many claims the free-running claimer made meanwhile depends on
      // scheduling and is only printed.
      assertThat(betweenBatches.get())
          .as("claims completed between batches")
          .isGreaterThanOrEqualTo(10);
      assertThat(halfWay.getCount()).as("half-way redeliveries checked").isZero();
      System.out.printf(
          "%s: pruned %d rows in %d statements, %d ms; %d claims meanwhile (old ids: %d"
              + " duplicate, %d applied again), slowest %d ms%n",
          database().name(),
          pruned,
          batches.size(),
          pruneNanos / 1_000_000,
          claimsDuringPrune.get(),
          oldDuplicate.get(),
          oldAppliedAgain.get(),
          maxClaimNanos.get() / 1_000_000);
    } finally {
      pruneDone.countDown();
      claimer.shutdownNow();
    }
    // What is left of consumer 'old' is exactly the ids applied again, and nothing is prunable.
    assertThat(store.admin().countPrunable(null, before)).isZero();
    // (+1: the pruned id the half-way check applied again.)
    assertThat(store.list(RecordState.DONE, "old", rows)).hasSize(oldAppliedAgain.get() + 1);
    assertThat(store.list(RecordState.DONE, "between", rows)).hasSize(betweenBatches.get());
  }

  // ---- schema and configuration ---------------------------------------------------------------

  @Test
  @DisplayName("the shipped DDL works for any valid table name and is safe to run twice")
  void schemaForCustomTable() throws Exception {
    String table = "orders_inbox";
    JdbcInboxStore custom = database().freshStore(table);
    custom.createSchemaIfMissing();
    assertThat(custom.schemaExists()).isTrue();
    assertThat(custom.schemaSql()).contains(table).contains(table + "_state_updated_idx");
    assertThat(custom.begin(new BeginRequest("c", "m", LEASE, 5, null)).claimed()).isTrue();
    assertThat(store.find("c", "m")).isEmpty();
  }

  @Test
  @Timeout(120)
  @DisplayName("many processes creating the schema at once all succeed")
  void concurrentSchemaCreation() throws Exception {
    // -Drace.rounds=150 (in argLine) hunts for rare interleavings by hand.
    for (int round = 0; round < Integer.getInteger("race.rounds", 5); round++) {
      String table = "race_schema_" + round;
      database().execute("DROP TABLE IF EXISTS " + table);
      int racers = 6;
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(racers);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
          futures.add(
              pool.submit(
                  () -> {
                    start.await();
                    database()
                        .storeBuilder(database().dataSource())
                        .table(table)
                        .build()
                        .createSchemaIfMissing();
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : futures) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(
              database().storeBuilder(database().dataSource()).table(table).build().schemaExists())
          .isTrue();
      database().execute("DROP TABLE " + table);
    }
  }

  @Test
  @DisplayName("a table name that is not a plain identifier is refused before any SQL")
  void tableNameInjectionIsRefused() {
    DataSource ds = database().dataSource();
    InboxRecord done = store.complete(begin("keep", "k-done").claim(), new byte[] {7});
    InboxRecord processing = begin("keep", "k-processing").record();
    for (String bad :
        List.of(
            "inbox; DROP TABLE inbox",
            "inbox--",
            "\"inbox\"",
            "in box",
            "1inbox",
            "a.b.c",
            "",
            "x".repeat(41),
            "inbox'",
            "`inbox`",
            "inbox`; DROP TABLE inbox_jdbc; --",
            "[inbox]",
            "inbox/**/",
            "inbox\0",
            "inbox\n",
            " inbox",
            "inbox ",
            "inbox.",
            ".inbox",
            // Unicode look-alikes: Cyrillic 'і' and 'о', a fullwidth 'ｉ', a zero-width space.
            "\u0456nbox",
            "inb\u043Ex",
            "\uFF49nbox",
            "in\u200Bbox",
            "inbox\u037E DROP TABLE inbox_jdbc", // Greek question mark looks like ';'
            "\u0130NBOX", // dotted capital I: upper/lower-casing rules differ by locale
            "x".repeat(10 * 1024),
            "a.".repeat(5 * 1024))) {
      assertThatThrownBy(() -> JdbcInboxStore.builder(ds).table(bad))
          .as(bad.length() > 60 ? bad.length() + " chars" : bad)
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining("table name")
          .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400));
      assertThatThrownBy(() -> TableName.of(bad)).isInstanceOf(InvalidConfigurationException.class);
    }
    assertThatThrownBy(() -> JdbcInboxStore.builder(ds).table(null))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThat(store.schemaExists()).isTrue();
    assertThat(store.find("keep", "k-done")).contains(done);
    assertThat(store.find("keep", "k-processing")).contains(processing);
    assertThat(store.list(RecordState.DONE, null, 10)).containsExactly(done);
    // The largest valid names are accepted, and still name real tables.
    assertThat(TableName.of("x".repeat(TableName.MAX_LENGTH)).value()).hasSize(40);
    assertThat(TableName.of("s".repeat(40) + "." + "t".repeat(40)).baseName())
        .isEqualTo("t".repeat(40));
  }

  @Test
  @DisplayName("the shipped DDL refuses a record with attempts below 1")
  void attemptsBelowOneIsRefusedByTheSchema() throws Exception {
    for (int attempts : new int[] {1, 0, -1}) {
      String insert =
          "INSERT INTO "
              + TABLE
              + " (consumer, message_id, state, attempts, created_at, updated_at) VALUES ('ck',"
              + " 'a"
              + attempts
              + "', 'DONE', "
              + attempts
              + ", "
              + database().pastTimeLiteral()
              + ", "
              + database().pastTimeLiteral()
              + ")";
      if (attempts >= 1) {
        database().execute(insert); // the same statement is accepted with a valid count
      } else {
        assertThatThrownBy(() -> database().execute(insert))
            .as("attempts " + attempts)
            .isInstanceOf(SQLException.class);
      }
    }
    assertThat(store.list(RecordState.DONE, "ck", 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("a1");
  }

  @Test
  @DisplayName("the server's dialect is detected; an explicit one is used as it is")
  void dialectDetectionAndOverride() throws Exception {
    try (Connection c = database().dataSource().getConnection()) {
      JdbcDialect detected = JdbcDialect.detect(c);
      assertThat(detected.name()).isEqualTo(database().detectedDialectName());
      Class<?> expected =
          switch (database().detectedDialectName()) {
            case "postgresql" -> dev.archlab.inbox.jdbc.dialect.PostgresDialect.class;
            case "mariadb" -> dev.archlab.inbox.jdbc.dialect.MariaDbDialect.class;
            case "h2" -> dev.archlab.inbox.jdbc.dialect.H2Dialect.class;
            case "sqlite" -> dev.archlab.inbox.jdbc.dialect.SqliteDialect.class;
            default -> throw new AssertionError(database().detectedDialectName());
          };
      assertThat(detected).isExactlyInstanceOf(expected);
    }
    JdbcInboxStore detecting = JdbcInboxStore.builder(database().dataSource()).table(TABLE).build();
    assertThat(detecting.dialect().name()).isEqualTo(database().detectedDialectName());
    // The store this test class runs on has the dialect its database prescribes.
    JdbcDialect forced = database().forcedDialect();
    assertThat(store.dialect().name())
        .isEqualTo(forced != null ? forced.name() : database().detectedDialectName());
    // An explicit dialect is the one used, and the statements it builds are the ones that run.
    AtomicInteger nowCalls = new AtomicInteger();
    JdbcDialect explicit = countingNow(database().detectedDialectName(), nowCalls);
    JdbcInboxStore overridden =
        JdbcInboxStore.builder(database().dataSource()).table(TABLE).dialect(explicit).build();
    assertThat(overridden.dialect()).isSameAs(explicit);
    assertThat(overridden.begin(new BeginRequest("dialect", "d-1", LEASE, 5, null)).claimed())
        .isTrue();
    assertThat(nowCalls).hasPositiveValue();
  }

  /** The built-in dialect called {@code name}, counting how often its clock SQL is asked for. */
  static JdbcDialect countingNow(String name, AtomicInteger calls) {
    switch (name) {
      case "postgresql":
        return new dev.archlab.inbox.jdbc.dialect.PostgresDialect() {
          @Override
          public String now() {
            calls.incrementAndGet();
            return super.now();
          }
        };
      case "mariadb":
        return new dev.archlab.inbox.jdbc.dialect.MariaDbDialect() {
          @Override
          public String now() {
            calls.incrementAndGet();
            return super.now();
          }
        };
      case "h2":
        return new dev.archlab.inbox.jdbc.dialect.H2Dialect() {
          @Override
          public String now() {
            calls.incrementAndGet();
            return super.now();
          }
        };
      case "sqlite":
        return new dev.archlab.inbox.jdbc.dialect.SqliteDialect() {
          @Override
          public String now() {
            calls.incrementAndGet();
            return super.now();
          }
        };
      default:
        throw new AssertionError(name);
    }
  }

  @Test
  @DisplayName("a missing table gives a clear error naming it")
  void missingTable() {
    JdbcInboxStore missing =
        database().storeBuilder(database().dataSource()).table("no_such_inbox").build();
    assertThat(missing.schemaExists()).isFalse();
    assertThatThrownBy(() -> missing.begin(new BeginRequest("c", "m", LEASE, 5, null)))
        .isInstanceOf(SchemaMissingException.class)
        .hasMessageContaining("no_such_inbox");
  }

  @Test
  @DisplayName("an unreachable database and a refused login are StoreUnavailableException")
  void unavailableDatabase() {
    String[] login = database().refusedLogin();
    try (HikariDataSource refused = poolFor(login[0], login[1], login[2])) {
      JdbcInboxStore s =
          JdbcInboxStore.builder(refused).table(TABLE).dialect(store.dialect()).build();
      assertThatThrownBy(() -> s.begin(new BeginRequest("c", "m", LEASE, 5, null)))
          .isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  @DisplayName("a database nobody listens for is StoreUnavailableException")
  void unreachableDatabase() {
    try (HikariDataSource nowhere = poolFor(database().unreachableUrl(), "u", "p")) {
      JdbcInboxStore s = database().storeBuilder(nowhere).table(TABLE).build();
      assertThatThrownBy(() -> s.begin(new BeginRequest("c", "m", LEASE, 5, null)))
          .isInstanceOfSatisfying(
              StoreUnavailableException.class,
              e -> assertThat(e.reason()).isEqualTo(StoreUnavailableException.Reason.UNREACHABLE))
          .hasMessageContaining("unreachable");
    }
  }

  /** The real pool, except that the first {@code failures} connections fail with {@code state}. */
  DataSource failingFirst(int failures, String state) {
    DataSource real = database().dataSource();
    AtomicInteger left = new AtomicInteger(failures);
    return (DataSource)
        java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection") && left.getAndDecrement() > 0) {
                throw new SQLException("injected fault", state);
              }
              try {
                return method.invoke(real, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  @DisplayName("serialization failures are retried a bounded number of times, then reported")
  void transientFailuresAreRetriedBounded() {
    JdbcInboxStore retrying =
        JdbcInboxStore.builder(failingFirst(2, "40001"))
            .table(TABLE)
            .dialect(store.dialect())
            .transientRetries(3)
            .build();
    assertThat(retrying.begin(new BeginRequest("retry", "r-1", LEASE, 5, null)).claimed()).isTrue();

    JdbcInboxStore givingUp =
        JdbcInboxStore.builder(failingFirst(5, "40001"))
            .table(TABLE)
            .dialect(store.dialect())
            .transientRetries(3)
            .build();
    assertThatThrownBy(() -> givingUp.begin(new BeginRequest("retry", "r-2", LEASE, 5, null)))
        .isInstanceOf(dev.archlab.inbox.InboxException.class)
        .hasMessageContaining("40001");
    assertThat(store.find("retry", "r-2")).isEmpty();

    // A lost connection is not retried blindly: it is reported as unavailable at once.
    JdbcInboxStore cut =
        JdbcInboxStore.builder(failingFirst(1, "08006"))
            .table(TABLE)
            .dialect(store.dialect())
            .build();
    assertThatThrownBy(() -> cut.begin(new BeginRequest("retry", "r-3", LEASE, 5, null)))
        .isInstanceOf(StoreUnavailableException.class);
  }

  static HikariDataSource poolFor(String url, String user, String password) {
    com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(1);
    config.setConnectionTimeout(2_000);
    // Zero: the constructor makes one connection attempt and, when it fails, records why and
    // starts the pool anyway. Hikari's timeout exception takes its SQLState and cause from the
    // last recorded failure, so the reason is known before any getConnection() waits; with -1
    // a loaded machine could reach the 2 s timeout before the first attempt failed, and the
    // exception would carry no cause and no SQLState (issue: flaky error classification).
    config.setInitializationFailTimeout(0);
    return new HikariDataSource(config);
  }
}
