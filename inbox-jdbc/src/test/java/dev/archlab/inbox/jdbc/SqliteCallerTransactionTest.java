package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.archlab.inbox.store.BeginRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The caller-transaction mode on SQLite, where the caller's open transaction holds the file's only
 * write lock: every write of the delivery must go through the caller's connection.
 *
 * <p>The store under test and the caller's connection come from a pool whose busy timeout is 1 s,
 * while the caller keeps its transaction open (the driver begins the next one at once after a
 * commit, so with auto-commit off the caller always holds the lock). Any write the mode tried on a
 * connection of its own would therefore fail with {@code SQLITE_BUSY}, whatever the timing: these
 * tests fail, rather than pass slowly, if the mode ever writes beside the caller's transaction
 * again. Before this mode wrote through the caller's connection, the claim waited for the busy
 * timeout (60 s in the shared test pool, then retried) and failed.
 */
class SqliteCallerTransactionTest {

  private static final String TABLE = "inbox_caller_tx";
  private static final String EFFECTS = "caller_tx_effect";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration BACKOFF = Duration.ofSeconds(1);

  private final SqliteDatabase database = SqliteDatabase.get();
  private HikariDataSource impatientPool;
  private JdbcInboxStore store;
  private Connection callerTx;
  private final List<InboxEvent> events = new CopyOnWriteArrayList<>();

  @BeforeEach
  void openCallersConnection() throws SQLException {
    database.freshStore(TABLE);
    try {
      database.execute("CREATE TABLE " + EFFECTS + " (message_id VARCHAR(255))");
    } catch (SQLException exists) {
      database.execute("DELETE FROM " + EFFECTS);
    }
    impatientPool = database.newPool(2, database.lockTimeoutSql(1_000));
    store = database.storeBuilder(impatientPool).table(TABLE).build();
    callerTx = impatientPool.getConnection();
  }

  @AfterEach
  void closeCallersConnection() throws SQLException {
    try {
      if (!callerTx.getAutoCommit()) {
        callerTx.rollback();
        callerTx.setAutoCommit(true);
      }
      callerTx.close();
    } finally {
      impatientPool.close();
    }
  }

  private static InboxConfig config(int maxAttempts) {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom().maxAttempts(maxAttempts).initialDelay(BACKOFF).jitter(0).build())
        .build();
  }

  private IdempotentConsumer.Builder consumer(TransactionalHandler handler) {
    return IdempotentConsumer.builder("caller", store)
        .effect(store.inCallerTransaction(() -> callerTx, handler))
        .config(config(3))
        .listener(events::add);
  }

  private static void book(Connection c, String messageId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + EFFECTS + " (message_id) VALUES (?)")) {
      ps.setString(1, messageId);
      ps.executeUpdate();
    }
  }

  private long effects(String messageId) throws SQLException {
    return database.count(
        "SELECT COUNT(*) FROM " + EFFECTS + " WHERE message_id = '" + messageId + "'");
  }

  private InboxRecord record(String messageId) {
    return store.find("caller", messageId).orElseThrow();
  }

  /** Moves stored time forward; a write, so only while the caller has no transaction open. */
  private void advance(Duration by) throws SQLException {
    assertThat(callerTx.getAutoCommit()).as("no caller transaction holds the lock").isTrue();
    database.shiftTime(TABLE, by.plusMillis(100));
  }

  @Test
  @DisplayName(
      "APPLIED: claim, business row and DONE commit with the caller; a repeat is DUPLICATE")
  void appliedCommitsWithTheCaller() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
                (m, a, conn) -> {
                  runs.incrementAndGet();
                  book(conn, m.id());
                })
            .build();
    callerTx.setAutoCommit(false);
    assertThat(c.consume(Message.of("ok-1")).status()).isEqualTo(Status.APPLIED);
    // The repeat reads the caller's own uncommitted DONE.
    assertThat(c.consume(Message.of("ok-1")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(store.find("caller", "ok-1")).as("nothing committed yet").isEmpty();
    assertThat(effects("ok-1")).isZero();
    callerTx.commit();
    InboxRecord done = record("ok-1");
    assertThat(done.state()).isEqualTo(RecordState.DONE);
    assertThat(done.attempts()).isEqualTo(1);
    assertThat(effects("ok-1")).isEqualTo(1);
    assertThat(c.consume(Message.of("ok-1")).status()).isEqualTo(Status.DUPLICATE);
    callerTx.commit();
    assertThat(runs).hasValue(1);
  }

  @Test
  @DisplayName(
      "IN_FLIGHT: a message another instance holds, or one waiting for its retry, runs nothing")
  void inFlightAnswersRunNothing() throws Exception {
    // Another instance's committed claim, with its lease running.
    store.begin(new BeginRequest("caller", "held", LEASE, 3, null));
    AtomicInteger runs = new AtomicInteger();
    IdempotentConsumer c = consumer((m, a, conn) -> runs.incrementAndGet()).build();
    callerTx.setAutoCommit(false);
    Outcome held = c.consume(Message.of("held"));
    assertThat(held.status()).isEqualTo(Status.IN_FLIGHT);
    assertThat(runs).hasValue(0);
    callerTx.commit();
    assertThat(record("held").attempts()).isEqualTo(1);
  }

  @Test
  @DisplayName("handler failure: its rows are undone, the attempt counts once the caller commits")
  void failureIsRecordedInTheCallersTransaction() throws Exception {
    AtomicInteger deadLetters = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
                (m, a, conn) -> {
                  book(conn, m.id());
                  // A real SQL error inside the transaction, after a write of the handler's.
                  try (PreparedStatement ps =
                      conn.prepareStatement("INSERT INTO no_such_table VALUES (1)")) {
                    ps.executeUpdate();
                  }
                })
            .config(config(2))
            .deadLetterHandler((m, r) -> deadLetters.incrementAndGet())
            .build();

    callerTx.setAutoCommit(false);
    Outcome first = c.consume(Message.of("poison"));
    assertThat(first.status()).isEqualTo(Status.FAILED);
    assertThat(first.attempts()).isEqualTo(1);
    // Within the backoff the repeat is IN_FLIGHT, read from the caller's own uncommitted failure.
    assertThat(c.consume(Message.of("poison")).status()).isEqualTo(Status.IN_FLIGHT);
    callerTx.commit();
    callerTx.setAutoCommit(true);
    InboxRecord failed = record("poison");
    assertThat(failed.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(failed.attempts()).isEqualTo(1);
    assertThat(failed.lastError()).contains("no_such_table");
    assertThat(effects("poison")).as("the handler's row was rolled back").isZero();

    advance(BACKOFF);
    callerTx.setAutoCommit(false);
    assertThat(c.consume(Message.of("poison")).status()).isEqualTo(Status.DEAD);
    callerTx.commit();
    assertThat(c.consume(Message.of("poison")).status()).isEqualTo(Status.DEAD);
    callerTx.commit();
    InboxRecord dead = record("poison");
    assertThat(dead.state()).isEqualTo(RecordState.DEAD);
    assertThat(dead.attempts()).isEqualTo(2);
    assertThat(deadLetters).hasValue(1);
    assertThat(effects("poison")).isZero();
    assertThat(events)
        .extracting(InboxEvent::kind)
        .contains(InboxEvent.Kind.FAILED, InboxEvent.Kind.RETRY, InboxEvent.Kind.DEAD);
  }

  @Test
  @DisplayName("handler failure, then the caller rolls back: the attempt is not counted")
  void failureRolledBackByTheCallerIsNotCounted() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
                (m, a, conn) -> {
                  book(conn, m.id());
                  if (runs.incrementAndGet() == 1) {
                    throw new IllegalStateException("first run fails");
                  }
                })
            .build();
    callerTx.setAutoCommit(false);
    assertThat(c.consume(Message.of("undone")).status()).isEqualTo(Status.FAILED);
    callerTx.rollback();
    assertThat(store.find("caller", "undone")).as("the failure rolled back with it").isEmpty();
    // Nothing to wait for: the next delivery is attempt 1 again.
    Outcome again = c.consume(Message.of("undone"));
    assertThat(again.status()).isEqualTo(Status.APPLIED);
    assertThat(again.attempts()).isEqualTo(1);
    callerTx.commit();
    assertThat(effects("undone")).isEqualTo(1);
  }

  @Test
  @DisplayName("savepoints: the handler's own survive; a failure after them undoes all its rows")
  void handlersOwnSavepoints() throws Exception {
    IdempotentConsumer c =
        consumer(
                (m, a, conn) -> {
                  book(conn, m.id());
                  Savepoint sp = conn.setSavepoint();
                  book(conn, m.id());
                  conn.rollback(sp);
                  if (m.id().equals("sp-fail")) {
                    throw new IllegalStateException("after a savepoint");
                  }
                })
            .build();
    callerTx.setAutoCommit(false);
    assertThat(c.consume(Message.of("sp-ok")).status()).isEqualTo(Status.APPLIED);
    assertThat(c.consume(Message.of("sp-fail")).status()).isEqualTo(Status.FAILED);
    callerTx.commit();
    assertThat(effects("sp-ok")).isEqualTo(1);
    assertThat(effects("sp-fail")).isZero();
    assertThat(record("sp-ok").state()).isEqualTo(RecordState.DONE);
    assertThat(record("sp-fail").attempts()).isEqualTo(1);
  }

  @Test
  @DisplayName("leases: no heartbeat runs beside the caller's transaction; extendLease works in it")
  void noHeartbeatButHandlerExtensions() throws Exception {
    AtomicInteger scheduled = new AtomicInteger();
    ScheduledThreadPoolExecutor heartbeat =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public ScheduledFuture<?> scheduleAtFixedRate(
              Runnable command, long initialDelay, long period, TimeUnit unit) {
            scheduled.incrementAndGet();
            return super.scheduleAtFixedRate(command, initialDelay, period, unit);
          }
        };
    try {
      IdempotentConsumer c =
          consumer(
                  (m, a, conn) -> {
                    Instant before = a.leaseUntil();
                    assertThat(a.extendLease(Duration.ofMinutes(5))).isAfter(before);
                    book(conn, m.id());
                  })
              .config(
                  InboxConfig.custom()
                      .lease(LEASE)
                      .heartbeatInterval(Duration.ofMillis(10))
                      .build())
              .heartbeatScheduler(heartbeat)
              .build();
      callerTx.setAutoCommit(false);
      assertThat(c.consume(Message.of("hb")).status()).isEqualTo(Status.APPLIED);
      callerTx.commit();
    } finally {
      heartbeat.shutdownNow();
    }
    assertThat(scheduled).as("heartbeat renewals scheduled").hasValue(0);
    assertThat(events).extracting(InboxEvent::kind).contains(InboxEvent.Kind.LEASE_EXTENDED);
    assertThat(record("hb").state()).isEqualTo(RecordState.DONE);
    assertThat(effects("hb")).isEqualTo(1);
  }

  @Test
  @Timeout(300)
  @DisplayName(
      "concurrent duplicates: the second caller's transaction waits for the first; one effect")
  void concurrentCallersApplyOnce() throws Exception {
    // Both callers use the shared pool (60 s busy timeout): the second one's BEGIN IMMEDIATE
    // waits for the first caller's commit, whenever it comes.
    JdbcInboxStore shared = database.storeBuilder(database.dataSource()).table(TABLE).build();
    CountDownLatch firstHandlerRunning = new CountDownLatch(1);
    CountDownLatch letFirstFinish = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    CompletableFuture<Status> first =
        CompletableFuture.supplyAsync(
            () ->
                consumeInOwnTransaction(
                    shared,
                    (m, a, conn) -> {
                      runs.incrementAndGet();
                      book(conn, m.id());
                      firstHandlerRunning.countDown();
                      assertThat(letFirstFinish.await(2, TimeUnit.MINUTES))
                          .as("backstop only")
                          .isTrue();
                    }));
    assertThat(firstHandlerRunning.await(2, TimeUnit.MINUTES)).as("backstop only").isTrue();
    CompletableFuture<Status> second =
        CompletableFuture.supplyAsync(
            () ->
                consumeInOwnTransaction(
                    shared,
                    (m, a, conn) -> {
                      runs.incrementAndGet();
                      book(conn, m.id());
                    }));
    letFirstFinish.countDown();
    assertThat(first.get(3, TimeUnit.MINUTES)).isEqualTo(Status.APPLIED);
    assertThat(second.get(3, TimeUnit.MINUTES)).isEqualTo(Status.DUPLICATE);
    assertThat(runs).hasValue(1);
    assertThat(effects("race")).isEqualTo(1);
  }

  /** One caller: its own connection and transaction around one delivery of "race", committed. */
  private Status consumeInOwnTransaction(JdbcInboxStore on, TransactionalHandler handler) {
    try (Connection own = database.dataSource().getConnection()) {
      own.setAutoCommit(false);
      IdempotentConsumer c =
          IdempotentConsumer.builder("caller", on)
              .effect(on.inCallerTransaction(() -> own, handler))
              .config(config(3))
              .build();
      Status status = c.consume(Message.of("race")).status();
      own.commit();
      own.setAutoCommit(true);
      return status;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
