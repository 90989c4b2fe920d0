package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.BatchItemFailedException;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.jdbc.consumer.TransactionalBatchHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A batch's failures stay with the messages that cause them, a repeated id within a batch answers
 * what a single call would, and a handler cannot end the transaction it was handed. Runs once per
 * database registered in {@link TestDatabases}, named after it; each writes a business ledger in
 * the handler's transaction, with no unique key, so a repeated effect would show as a second row.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class BatchIsolationTest {

  static final String TABLE = "inbox_batch";
  static final String LEDGER = "batch_ledger";
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration BACKOFF = Duration.ofSeconds(1);

  /** Moves stored time past any backoff of {@link #config}. */
  static final Duration PAST_BACKOFF = Duration.ofMinutes(1);

  JdbcInboxStore store;

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  TestDatabase database() {
    return registered.get();
  }

  @BeforeEach
  void freshTables() throws SQLException {
    store = database().freshStore(TABLE);
    try {
      database().execute("CREATE TABLE " + LEDGER + " (message_id VARCHAR(255))");
    } catch (SQLException exists) {
      database().execute("DELETE FROM " + LEDGER);
    }
  }

  static InboxConfig config(int maxAttempts) {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(maxAttempts)
                .initialDelay(BACKOFF)
                .multiplier(1)
                .jitter(0)
                .build())
        .build();
  }

  static void book(Connection c, Message m) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + LEDGER + " (message_id) VALUES (?)")) {
      ps.setString(1, m.id());
      ps.executeUpdate();
    }
  }

  long ledgerRows(String id) throws SQLException {
    return database().count("SELECT COUNT(*) FROM " + LEDGER + " WHERE message_id = '" + id + "'");
  }

  long ledgerRows() throws SQLException {
    return database().count("SELECT COUNT(*) FROM " + LEDGER);
  }

  InboxRecord record(String consumer, String id) {
    return store.find(consumer, id).orElseThrow();
  }

  static List<Message> messages(String... ids) {
    List<Message> out = new ArrayList<>();
    for (String id : ids) {
      out.add(Message.of(id));
    }
    return out;
  }

  /** Books every message, throwing when it meets one whose id starts with "poison". */
  static TransactionalBatchHandler ledgerRefusingPoison(List<List<String>> calls) {
    return (batch, c) -> {
      calls.add(batch.stream().map(Message::id).toList());
      for (Message m : batch) {
        if (m.id().startsWith("poison")) {
          throw new IllegalArgumentException("bad " + m.id());
        }
        book(c, m);
      }
    };
  }

  // ---- a failing message fails alone ---------------------------------------------------------

  @Test
  @DisplayName("batch: a poison message fails alone; the good ones around it apply")
  void poisonFailsAlone() throws Exception {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(ledgerRefusingPoison(calls))
            .build();
    List<Outcome> outcomes = c.consume(messages("good-1", "poison-1", "good-2"));
    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.FAILED, Status.APPLIED);
    assertThat(outcomes.get(1).error()).hasMessage("bad poison-1");
    assertThat(record("batch", "good-1").state()).isEqualTo(RecordState.DONE);
    assertThat(record("batch", "good-1").lastError()).isNull();
    assertThat(record("batch", "poison-1").lastError()).contains("bad poison-1");
    assertThat(ledgerRows("good-1")).isEqualTo(1);
    assertThat(ledgerRows("good-2")).isEqualTo(1);
    assertThat(ledgerRows()).isEqualTo(2);
    // Bisection: the whole, then [good-1, poison-1] and [good-2], then each of the first half.
    assertThat(calls)
        .containsExactly(
            List.of("good-1", "poison-1", "good-2"),
            List.of("good-1", "poison-1"),
            List.of("good-1"),
            List.of("poison-1"),
            List.of("good-2"));
  }

  @Test
  @DisplayName("batch: good, poison, good, dup, dup: goods apply, dup once, poison retries to DEAD")
  void mixedBatchUntilDead() throws Exception {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    List<String> deadLetters = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(ledgerRefusingPoison(calls))
            .deadLetterHandler((m, r) -> deadLetters.add(m.id()))
            .build();
    List<Message> batch = messages("good-1", "poison-1", "good-2", "dup-1", "dup-1");

    assertThat(c.consume(batch))
        .extracting(Outcome::status)
        .containsExactly(
            Status.APPLIED, Status.FAILED, Status.APPLIED, Status.APPLIED, Status.DUPLICATE);
    database().shiftTime(TABLE, PAST_BACKOFF);
    assertThat(c.consume(batch))
        .extracting(Outcome::status)
        .containsExactly(
            Status.DUPLICATE, Status.FAILED, Status.DUPLICATE, Status.DUPLICATE, Status.DUPLICATE);
    database().shiftTime(TABLE, PAST_BACKOFF);
    List<Outcome> last = c.consume(batch);
    assertThat(last)
        .extracting(Outcome::status)
        .containsExactly(
            Status.DUPLICATE, Status.DEAD, Status.DUPLICATE, Status.DUPLICATE, Status.DUPLICATE);

    assertThat(deadLetters).containsExactly("poison-1");
    InboxRecord poison = record("batch", "poison-1");
    assertThat(poison.state()).isEqualTo(RecordState.DEAD);
    assertThat(poison.attempts()).isEqualTo(3);
    assertThat(poison.lastError()).contains("bad poison-1");
    for (String good : List.of("good-1", "good-2", "dup-1")) {
      assertThat(record("batch", good).state()).as(good).isEqualTo(RecordState.DONE);
      assertThat(record("batch", good).attempts()).as(good).isEqualTo(1);
      assertThat(record("batch", good).lastError()).as(good).isNull();
      assertThat(ledgerRows(good)).as("ledger rows of " + good).isEqualTo(1);
    }
    assertThat(ledgerRows("poison-1")).isZero();
    assertThat(ledgerRows()).isEqualTo(3);
    // After the first call only the poison reached the handler, alone.
    assertThat(calls.subList(calls.size() - 2, calls.size()))
        .containsExactly(List.of("poison-1"), List.of("poison-1"));
  }

  @Test
  @DisplayName(
      "batch: messages named by BatchItemFailedException fail; the rest re-run once, together")
  void namedItemsFailAlone() throws Exception {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(
                (batch, conn) -> {
                  calls.add(batch.stream().map(Message::id).toList());
                  List<String> poison = new ArrayList<>();
                  for (Message m : batch) {
                    if (m.id().startsWith("poison")) {
                      poison.add(m.id());
                    } else {
                      book(conn, m);
                    }
                  }
                  if (!poison.isEmpty()) {
                    throw new BatchItemFailedException(
                        poison, new IllegalArgumentException("unknown account"));
                  }
                })
            .build();
    List<Outcome> outcomes = c.consume(messages("n-1", "poison-2", "n-3", "poison-4"));
    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.FAILED, Status.APPLIED, Status.FAILED);
    assertThat(outcomes.get(1).error())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown account");
    assertThat(calls)
        .containsExactly(List.of("n-1", "poison-2", "n-3", "poison-4"), List.of("n-1", "n-3"));
    assertThat(record("batch", "poison-4").lastError())
        .isEqualTo("java.lang.IllegalArgumentException: unknown account");
    assertThat(ledgerRows()).isEqualTo(2);
    assertThat(ledgerRows("n-1")).isEqualTo(1);
    assertThat(ledgerRows("n-3")).isEqualTo(1);
  }

  @Test
  @DisplayName("batch: naming an id outside the batch counts as an unnamed failure and bisects")
  void namingAStrangerBisects() throws Exception {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(
                (batch, conn) -> {
                  calls.add(batch.stream().map(Message::id).toList());
                  for (Message m : batch) {
                    if (m.id().startsWith("poison")) {
                      throw new BatchItemFailedException(
                          List.of("not-in-batch"), new IllegalArgumentException("wrong name"));
                    }
                    book(conn, m);
                  }
                })
            .build();
    assertThat(c.consume(messages("a-1", "poison-2")))
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.FAILED);
    assertThat(calls)
        .containsExactly(List.of("a-1", "poison-2"), List.of("a-1"), List.of("poison-2"));
    assertThat(record("batch", "poison-2").lastError())
        .contains("BatchItemFailedException")
        .contains("not-in-batch");
    assertThat(ledgerRows("a-1")).isEqualTo(1);
  }

  @Test
  @DisplayName("batch: bisection cost stays within the documented bounds")
  void bisectionCostBound() throws Exception {
    // 16 messages, 2 of them poison: at most 1 + 2k*ceil(log2 n) = 1 + 2*2*4 = 17 runs.
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(ledgerRefusingPoison(calls))
            .build();
    List<Message> batch = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      batch.add(Message.of((i == 3 || i == 12 ? "poison-" : "ok-") + i));
    }
    List<Outcome> outcomes = c.consume(batch);
    for (int i = 0; i < 16; i++) {
      assertThat(outcomes.get(i).status())
          .as(batch.get(i).id())
          .isEqualTo(i == 3 || i == 12 ? Status.FAILED : Status.APPLIED);
    }
    assertThat(calls).hasSizeLessThanOrEqualTo(17);
    assertThat(ledgerRows()).isEqualTo(14);

    // A handler that always fails, whatever it is given: every split runs, 2n - 1 = 15 for n = 8.
    List<List<String>> failing = new CopyOnWriteArrayList<>();
    BatchConsumer broken =
        BatchConsumer.builder("broken", store)
            .config(config(3))
            .handler(
                (b, conn) -> {
                  failing.add(b.stream().map(Message::id).toList());
                  throw new IllegalStateException("downstream schema changed");
                })
            .build();
    List<Message> eight = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      eight.add(Message.of("x-" + i));
    }
    assertThat(broken.consume(eight)).extracting(Outcome::status).containsOnly(Status.FAILED);
    assertThat(failing).hasSize(15);
    assertThat(failing.stream().filter(b -> b.size() == 1).count()).isEqualTo(8);
  }

  // ---- a repeated id within one batch --------------------------------------------------------

  @Test
  @DisplayName("batch: the second copy of an applied id is DUPLICATE, as a single call would be")
  void duplicateWithinBatch() throws Exception {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(ledgerRefusingPoison(calls))
            .build();
    List<Outcome> outcomes = c.consume(messages("d-1", "d-1"));
    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.DUPLICATE);
    assertThat(outcomes.get(1).attempts()).isEqualTo(1);
    assertThat(outcomes.get(1).retryAfter()).isEqualTo(Duration.ZERO);
    assertThat(calls).containsExactly(List.of("d-1"));
    assertThat(ledgerRows("d-1")).isEqualTo(1);
    // The same answer a separate call gives.
    assertThat(c.consume(messages("d-1")).get(0).status()).isEqualTo(Status.DUPLICATE);
  }

  @Test
  @DisplayName(
      "batch: the second copy of a failed id waits out the backoff, as a single call would")
  void duplicateOfFailedCopy() throws Exception {
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(3))
            .handler(ledgerRefusingPoison(new CopyOnWriteArrayList<>()))
            .build();
    List<Outcome> outcomes = c.consume(messages("poison-d", "poison-d"));
    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.FAILED, Status.IN_FLIGHT);
    Outcome copy = outcomes.get(1);
    assertThat(copy.attempts()).isEqualTo(1);
    // Redeliver when the retry is due, not after a lease: the copy's hint is the backoff.
    assertThat(copy.retryAfter()).isEqualTo(outcomes.get(0).retryAfter()).isEqualTo(BACKOFF);
    assertThat(record("batch", "poison-d").attempts()).isEqualTo(1);
    // A single call right after answers the same: IN_FLIGHT until the backoff ends.
    Outcome single = c.consume(messages("poison-d")).get(0);
    assertThat(single.status()).isEqualTo(Status.IN_FLIGHT);
    assertThat(single.retryAfter()).isPositive().isLessThanOrEqualTo(BACKOFF);
  }

  @Test
  @DisplayName("batch: the second copy of an id that died is DEAD, dead-lettered once")
  void duplicateOfDeadCopy() throws Exception {
    List<String> deadLetters = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(config(1))
            .handler(ledgerRefusingPoison(new CopyOnWriteArrayList<>()))
            .deadLetterHandler((m, r) -> deadLetters.add(m.id()))
            .build();
    assertThat(c.consume(messages("poison-x", "poison-x")))
        .extracting(Outcome::status)
        .containsExactly(Status.DEAD, Status.DEAD);
    assertThat(deadLetters).containsExactly("poison-x");
  }

  @Test
  @DisplayName("batch: a repeated id with another payload is refused as a single call would be")
  void repeatWithAnotherPayloadIsRefused() throws Exception {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    BatchConsumer c =
        BatchConsumer.builder("batch", store)
            .config(InboxConfig.from(config(3)).fingerprintPayloads(true).build())
            .handler(ledgerRefusingPoison(calls))
            .build();
    byte[] one = "one".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] two = "two".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    List<Message> batch =
        List.of(
            Message.of("p-0", "t", one), Message.of("p-1", "t", one), Message.of("p-1", "t", two));
    assertThatThrownBy(() -> c.consume(batch))
        .isInstanceOf(PayloadMismatchException.class)
        .hasMessageContaining("'p-1'");
    assertThat(calls).isEmpty();
    assertThat(store.find("batch", "p-0")).isEmpty();
    assertThat(ledgerRows()).isZero();
    // The same payload twice is an ordinary repeat.
    assertThat(c.consume(List.of(Message.of("p-1", "t", one), Message.of("p-1", "t", one))))
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.DUPLICATE);
  }

  // ---- the handler's connection is guarded ---------------------------------------------------

  /** Every way the library hands its transaction's connection to user code. */
  enum Mode {
    TRANSACTIONAL,
    ONE_COMMIT,
    BATCH
  }

  /** What a handler must not do to the connection it was handed. */
  enum Misuse {
    COMMIT,
    ROLLBACK,
    AUTOCOMMIT,
    CLOSE,
    UNWRAPPED_COMMIT;

    void apply(Connection c) throws SQLException {
      switch (this) {
        case COMMIT -> c.commit();
        case ROLLBACK -> c.rollback();
        case AUTOCOMMIT -> c.setAutoCommit(true);
        case CLOSE -> c.close();
        case UNWRAPPED_COMMIT -> c.unwrap(Connection.class).commit();
      }
    }

    String method() {
      return switch (this) {
        case COMMIT, UNWRAPPED_COMMIT -> "commit()";
        case ROLLBACK -> "rollback()";
        case AUTOCOMMIT -> "setAutoCommit(";
        case CLOSE -> "close()";
      };
    }
  }

  /** A handler of one message in the given mode, as one call of {@code consume} would run it. */
  interface OneMessage {
    void handle(Message m, Connection c) throws Exception;
  }

  Outcome consumeIn(Mode mode, String consumer, Message m, OneMessage handler) {
    return switch (mode) {
      case TRANSACTIONAL ->
          IdempotentConsumer.builder(consumer, store)
              .config(config(3))
              .effect(store.transactional((msg, a, c) -> handler.handle(msg, c)))
              .build()
              .consume(m);
      case ONE_COMMIT ->
          OneCommitConsumer.builder(consumer, store)
              .config(config(3))
              .handler((msg, a, c) -> handler.handle(msg, c))
              .build()
              .consume(m);
      case BATCH ->
          BatchConsumer.builder(consumer, store)
              .config(config(3))
              .handler(
                  (batch, c) -> {
                    for (Message msg : batch) {
                      handler.handle(msg, c);
                    }
                  })
              .build()
              .consume(List.of(m))
              .get(0);
    };
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  @DisplayName(
      "guard: commit, rollback, autocommit, close and an unwrapped commit fail the attempt")
  void handlerCannotEndTheTransaction(Mode mode) throws Exception {
    for (Misuse misuse : Misuse.values()) {
      String consumer = "guard-" + misuse.name().toLowerCase(java.util.Locale.ROOT);
      Message m = Message.of("g-" + mode);
      AtomicBoolean misbehave = new AtomicBoolean(true);
      OneMessage handler =
          (msg, c) -> {
            book(c, msg);
            if (misbehave.get()) {
              misuse.apply(c);
            }
          };
      Outcome refused = consumeIn(mode, consumer, m, handler);
      assertThat(refused.status()).as(misuse.name()).isEqualTo(Status.FAILED);
      assertThat(refused.error())
          .as(misuse.name())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(misuse.method())
          .hasMessageContaining("the inbox ends this transaction");
      assertThat(ledgerRows(m.id())).as(misuse.name()).isZero();
      InboxRecord r = record(consumer, m.id());
      assertThat(r.attempts()).as(misuse.name()).isEqualTo(1);
      assertThat(r.lastError()).as(misuse.name()).contains(misuse.method());
      // The record is an ordinary failed attempt: the retry applies once it is due.
      database().shiftTime(TABLE, PAST_BACKOFF);
      misbehave.set(false);
      assertThat(consumeIn(mode, consumer, m, handler).status())
          .as(misuse.name())
          .isEqualTo(Status.APPLIED);
      assertThat(ledgerRows(m.id())).as(misuse.name()).isEqualTo(1);
      database().execute("DELETE FROM " + LEDGER);
    }
  }

  @Test
  @DisplayName(
      "guard: in the caller's transaction a handler's commit is refused and fails the attempt")
  void callerTransactionIsGuarded() throws Exception {
    try (Connection callerTx = database().dataSource().getConnection()) {
      callerTx.setAutoCommit(false);
      IdempotentConsumer c =
          IdempotentConsumer.builder("caller", store)
              .config(config(3))
              .effect(
                  store.inCallerTransaction(
                      () -> callerTx,
                      (m, a, conn) -> {
                        book(conn, m);
                        conn.commit();
                      }))
              .build();
      Outcome outcome = c.consume(Message.of("c-1"));
      assertThat(outcome.status()).isEqualTo(Status.FAILED);
      assertThat(outcome.error())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("commit()")
          .hasMessageContaining("the caller of consume ends this transaction");
      callerTx.rollback();
      assertThat(ledgerRows("c-1")).isZero();
      callerTx.setAutoCommit(true);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  @DisplayName("guard: a refused commit the handler swallows still fails the attempt")
  void swallowedRefusalStillFails(Mode mode) throws Exception {
    Message m = Message.of("s-" + mode);
    Outcome outcome =
        consumeIn(
            mode,
            "swallow",
            m,
            (msg, c) -> {
              book(c, msg);
              try {
                c.commit();
              } catch (IllegalStateException ignored) {
                // a handler that hides the refusal must not get APPLIED
              }
            });
    assertThat(outcome.status()).isEqualTo(Status.FAILED);
    assertThat(outcome.error()).hasMessageContaining("commit()");
    assertThat(ledgerRows(m.id())).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mode.class)
  @DisplayName("guard: savepoints stay allowed; rolling back to one undoes only what followed it")
  void savepointsAllowed(Mode mode) throws Exception {
    Message m = Message.of("sp-" + mode);
    Outcome outcome =
        consumeIn(
            mode,
            "savepoint",
            m,
            (msg, c) -> {
              book(c, msg);
              Savepoint sp = c.setSavepoint();
              book(c, Message.of(msg.id() + "-undone"));
              c.rollback(sp);
              assertThat(c.unwrap(Connection.class)).isSameAs(c);
              assertThat(c.isWrapperFor(Connection.class)).isTrue();
              assertThat(c.getAutoCommit()).isFalse();
            });
    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(ledgerRows(m.id())).isEqualTo(1);
    assertThat(ledgerRows(m.id() + "-undone")).isZero();
  }
}
