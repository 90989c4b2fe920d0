package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.ConsumerClosedException;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22, items 4, 5, 8 and 9, on PostgreSQL: events judged by the database clock, and the same
 * lifecycle and refusals for every consumer of the JDBC store. Skipped, without starting the
 * server, when {@value TestDatabases#PROPERTY} leaves PostgreSQL out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerEdgesPostgresTest {

  private static final String TABLE = "inbox_edges";
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** Started on first use, once PostgreSQL is known to be selected. */
  private TestDatabase db;

  private final List<InboxEvent> events = new CopyOnWriteArrayList<>();
  private final ExecutorService watcher = Executors.newSingleThreadExecutor();
  private JdbcInboxStore store;

  @BeforeEach
  void freshTable() throws SQLException {
    TestDatabases.assumeSelected("postgresql");
    db = PostgresDatabase.get();
    store = db.freshStore(TABLE);
  }

  @AfterEach
  void stopWatcher() {
    watcher.shutdownNow();
  }

  private static InboxConfig config(Duration lease) {
    return InboxConfig.custom()
        .lease(lease)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(5)
                .initialDelay(Duration.ofSeconds(1))
                .jitter(0)
                .build())
        .build();
  }

  private List<InboxEvent.Kind> kinds() {
    return events.stream().map(InboxEvent::kind).toList();
  }

  /** True once the database's clock has reached the stored lease end of {@code id}. */
  private boolean leaseOverOnTheDatabaseClock(String id) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT statement_timestamp() >= lease_until FROM "
                    + TABLE
                    + " WHERE consumer = ? AND message_id = ?")) {
      ps.setString(1, "slow");
      ps.setString(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /**
   * Opens {@code leaseOver} once the handler is running and the database's clock has reached the
   * stored lease end of {@code id}; the pause between polls only spares the CPU.
   */
  private Future<?> openOnceTheLeaseIsOver(
      String id, CountDownLatch handlerRunning, CountDownLatch leaseOver) {
    return watcher.submit(
        () -> {
          handlerRunning.await();
          while (!leaseOverOnTheDatabaseClock(id)) {
            TimeUnit.MILLISECONDS.sleep(20);
          }
          leaseOver.countDown();
          return null;
        });
  }

  // ---- item 5: LEASE_OVERRUN, judged by the database clock --------------------------------------

  @Test
  @DisplayName("a transactional completion after the lease end (database clock) is LEASE_OVERRUN")
  void overrunIsJudgedByTheDatabaseClock() throws Exception {
    CountDownLatch leaseOver = new CountDownLatch(1);
    CountDownLatch handlerRunning = new CountDownLatch(1);
    IdempotentConsumer slow =
        IdempotentConsumer.builder("slow", store)
            .effect(
                store.transactional(
                    (m, a, c) -> {
                      handlerRunning.countDown();
                      // Holds the handler until the database, not this JVM, says the lease is over.
                      assertThat(leaseOver.await(60, TimeUnit.SECONDS)).isTrue();
                    }))
            .config(config(Duration.ofMillis(500)))
            .listener(events::add)
            .build();
    Future<?> watching = openOnceTheLeaseIsOver("slow-1", handlerRunning, leaseOver);

    assertThat(slow.consume(Message.of("slow-1")).status()).isEqualTo(Status.APPLIED);
    watching.get(60, TimeUnit.SECONDS);

    assertThat(kinds())
        .containsExactly(
            InboxEvent.Kind.CLAIMED, InboxEvent.Kind.LEASE_OVERRUN, InboxEvent.Kind.APPLIED);
    assertThat(events.get(1).messageId()).isEqualTo("slow-1");
    slow.close();
  }

  @Test
  @DisplayName("a batch completed after its lease end (database clock) reports LEASE_OVERRUN")
  void batchOverrunIsJudgedByTheDatabaseClock() throws Exception {
    CountDownLatch leaseOver = new CountDownLatch(1);
    CountDownLatch handlerRunning = new CountDownLatch(1);
    BatchConsumer slow =
        BatchConsumer.builder("slow", store)
            .handler(
                (messages, c) -> {
                  handlerRunning.countDown();
                  // Holds the batch until the database, not this JVM, says the lease is over.
                  assertThat(leaseOver.await(60, TimeUnit.SECONDS)).isTrue();
                })
            .config(config(Duration.ofMillis(500)))
            .listener(events::add)
            .build();
    Future<?> watching = openOnceTheLeaseIsOver("slow-batch-1", handlerRunning, leaseOver);

    assertThat(slow.consume(List.of(Message.of("slow-batch-1"))))
        .extracting(o -> o.status())
        .containsExactly(Status.APPLIED);
    watching.get(60, TimeUnit.SECONDS);

    assertThat(kinds())
        .containsExactly(
            InboxEvent.Kind.CLAIMED, InboxEvent.Kind.LEASE_OVERRUN, InboxEvent.Kind.APPLIED);
    slow.close();
  }

  @Test
  @DisplayName("a completion well inside its lease is no overrun")
  void completionInsideTheLeaseIsNoOverrun() {
    IdempotentConsumer quick =
        IdempotentConsumer.builder("quick", store)
            .effect(store.transactional((m, a, c) -> {}))
            .config(config(LEASE))
            .listener(events::add)
            .build();
    assertThat(quick.consume(Message.of("q-1")).status()).isEqualTo(Status.APPLIED);
    assertThat(kinds()).containsExactly(InboxEvent.Kind.CLAIMED, InboxEvent.Kind.APPLIED);
    quick.close();
  }

  // ---- item 4: a due retry is RETRY, in the lease mode and in the one-commit mode ---------------

  @Test
  @DisplayName("one-commit: a due retry after a failure reports RETRY, never TAKEOVER")
  void oneCommitRetryIsNotATakeover() {
    AtomicInteger runs = new AtomicInteger();
    try (OneCommitConsumer ledger =
        OneCommitConsumer.builder("ledger", store)
            .handler(
                (m, a, c) -> {
                  if (runs.incrementAndGet() == 1) {
                    throw new IllegalStateException("ledger locked");
                  }
                })
            .config(config(LEASE))
            .listener(events::add)
            .build()) {
      assertThat(ledger.consume(Message.of("oc-1")).status()).isEqualTo(Status.FAILED);
      db.shiftTime(TABLE, Duration.ofSeconds(1)); // the retry time is due
      events.clear();

      assertThat(ledger.consume(Message.of("oc-1")).status()).isEqualTo(Status.APPLIED);
      assertThat(kinds())
          .containsExactly(InboxEvent.Kind.RETRY, InboxEvent.Kind.CLAIMED, InboxEvent.Kind.APPLIED);
    }
  }

  @Test
  @DisplayName("lease mode: a retry after a failure is RETRY; a crash of that retry is TAKEOVER")
  void leaseModeRetryAndTakeoverAreTold() {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotentConsumer c =
        IdempotentConsumer.builder("notifier", store)
            .effect(
                store.transactional(
                    (m, a, conn) -> {
                      if (runs.incrementAndGet() == 1) {
                        throw new IllegalStateException("provider timeout");
                      }
                    }))
            .config(config(LEASE))
            .listener(events::add)
            .build()) {
      assertThat(c.consume(Message.of("n-1")).status()).isEqualTo(Status.FAILED);
      db.shiftTime(TABLE, Duration.ofSeconds(1));
      events.clear();
      assertThat(c.consume(Message.of("n-1")).status()).isEqualTo(Status.APPLIED);
      assertThat(kinds()).contains(InboxEvent.Kind.RETRY).doesNotContain(InboxEvent.Kind.TAKEOVER);
    }
  }

  // ---- items 8 and 9: one lifecycle, one exception rule ----------------------------------------

  @Test
  @DisplayName(
      "every consumer is AutoCloseable; after close consume throws ConsumerClosedException")
  void everyConsumerClosesTheSameWay() throws Exception {
    OneCommitConsumer oneCommit =
        OneCommitConsumer.builder("oc", store).handler((m, a, c) -> {}).build();
    BatchConsumer batch = BatchConsumer.builder("bc", store).handler((ms, c) -> {}).build();
    IdempotentConsumer lease =
        IdempotentConsumer.builder("lc", store)
            .effect(store.transactional((m, a, c) -> {}))
            .build();
    for (AutoCloseable c : List.<AutoCloseable>of(oneCommit, batch, lease)) {
      c.close();
      c.close(); // idempotent
    }

    assertThatThrownBy(() -> oneCommit.consume(Message.of("x-1")))
        .isInstanceOf(ConsumerClosedException.class)
        .hasMessageContaining("'oc'");
    assertThatThrownBy(() -> batch.consume(List.of(Message.of("x-1"))))
        .isInstanceOf(ConsumerClosedException.class)
        .hasMessageContaining("'bc'");
    assertThatThrownBy(() -> lease.consume(Message.of("x-1")))
        .isInstanceOf(ConsumerClosedException.class)
        .hasMessageContaining("'lc'");
    assertThat(db.count("SELECT COUNT(*) FROM " + TABLE)).isZero();
  }

  @Test
  @DisplayName("every consumer prunes its own DONE records past retention with pruneExpired()")
  void everyConsumerPrunes() throws Exception {
    InboxConfig window =
        InboxConfig.custom().dedupWindow(Duration.ofDays(7), Duration.ofDays(1)).build();
    OneCommitConsumer oneCommit =
        OneCommitConsumer.builder("oc", store).handler((m, a, c) -> {}).config(window).build();
    BatchConsumer batch =
        BatchConsumer.builder("bc", store).handler((ms, c) -> {}).config(window).build();
    assertThat(oneCommit.consume(Message.of("p-1")).status()).isEqualTo(Status.APPLIED);
    assertThat(batch.consume(List.of(Message.of("p-1"), Message.of("p-2"))))
        .allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.APPLIED));

    assertThat(oneCommit.pruneExpired()).isZero(); // inside the window
    db.shiftTime(TABLE, Duration.ofDays(8));
    assertThat(oneCommit.pruneExpired()).isEqualTo(1);
    assertThat(batch.pruneExpired()).isEqualTo(2);
    assertThat(db.count("SELECT COUNT(*) FROM " + TABLE)).isZero();
  }

  @Test
  @DisplayName("one-commit and batch consumers refuse a heartbeat they would never run")
  void heartbeatIsRefusedWhereNoLeaseIsRenewed() {
    InboxConfig heartbeat = InboxConfig.custom().lease(Duration.ofMillis(1)).heartbeat().build();
    assertThatThrownBy(
            () ->
                OneCommitConsumer.builder("oc", store)
                    .handler((m, a, c) -> {})
                    .config(heartbeat)
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("heartbeat()")
        .hasMessageContaining("'oc'");
    assertThatThrownBy(
            () ->
                BatchConsumer.builder("bc", store).handler((ms, c) -> {}).config(heartbeat).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("heartbeat()")
        .hasMessageContaining("'bc'");
  }

  @Test
  @DisplayName("nulls and padded names are InvalidArgumentExceptions in every consumer")
  void nullsAndPaddedNamesAreInvalidArguments() {
    assertThatThrownBy(() -> OneCommitConsumer.builder("oc", null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("store");
    assertThatThrownBy(() -> BatchConsumer.builder("bc", null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("store");
    assertThatThrownBy(() -> OneCommitConsumer.builder(" oc", store))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("whitespace");
    assertThatThrownBy(() -> BatchConsumer.builder("bc ", store))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("whitespace");
    OneCommitConsumer oneCommit =
        OneCommitConsumer.builder("oc", store).handler((m, a, c) -> {}).build();
    BatchConsumer batch = BatchConsumer.builder("bc", store).handler((ms, c) -> {}).build();
    assertThatThrownBy(() -> oneCommit.consume(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("message");
    assertThatThrownBy(() -> batch.consume(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("messages");
    assertThatThrownBy(() -> batch.consume(java.util.Arrays.asList(Message.of("b-1"), null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("messages[1]");
  }
}
