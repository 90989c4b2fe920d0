package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.BatchItemFailedException;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.outbox.OutboxAdmin.Entry;
import dev.archlab.inbox.outbox.OutboxAdmin.State;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sends from inbox handlers: they commit with the handler's business write and DONE, and vanish
 * with a failed attempt or a fenced-out stale owner; re-runs send under the same ids.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#servers")
class HandlerSendsTest {

  static final String INBOX = "handler_inbox";
  static final String OUTBOX = "handler_outbox";
  static final String EFFECTS = "handler_effect";
  static final Duration LEASE = Duration.ofSeconds(30);

  @Parameter OutboxDatabase db;

  JdbcInboxStore store;
  Outbox outbox;

  @BeforeEach
  void freshTables() throws SQLException {
    db.drop(INBOX);
    db.drop(OUTBOX);
    db.drop(EFFECTS);
    db.execute("CREATE TABLE " + EFFECTS + " (message_id VARCHAR(255), worker VARCHAR(16))");
    store = JdbcInboxStore.builder(db.dataSource()).table(INBOX).build();
    store.createSchemaIfMissing();
    outbox = Outbox.builder(db.dataSource()).table(OUTBOX).build();
    outbox.createSchemaIfMissing();
  }

  @Test
  @DisplayName("one-commit: a handler that fails twice, then succeeds, sends each message once")
  void failsTwiceThenSendsOnce() throws SQLException {
    OneCommitConsumer consumer =
        OneCommitConsumer.builder("billing", store)
            .handler(
                (m, attempt, c) -> {
                  insertEffect(c, m.id(), "w" + attempt.number());
                  OutboxSender out = outbox.sendsOf(attempt, c);
                  out.send("payments", m.id(), bytes("applied by attempt " + attempt.number()));
                  out.send("notifications", m.id(), bytes("sms"));
                  if (attempt.number() <= 2) {
                    throw new IllegalStateException("ledger busy");
                  }
                })
            .config(config())
            .build();
    Message m = Message.of("pay-1");
    assertThat(consumer.consume(m).status()).isEqualTo(Status.FAILED);
    assertThat(outboxRows()).isEmpty();
    endBackoff();
    assertThat(consumer.consume(m).status()).isEqualTo(Status.FAILED);
    assertThat(outboxRows()).isEmpty();
    endBackoff();
    assertThat(consumer.consume(m).status()).isEqualTo(Status.APPLIED);
    assertThat(consumer.consume(m).status()).isEqualTo(Status.DUPLICATE);

    List<Entry> rows = outboxRows();
    assertThat(rows)
        .extracting(e -> e.row().id())
        .containsExactly(
            OutgoingIds.derived("billing", "pay-1", 0), OutgoingIds.derived("billing", "pay-1", 1));
    assertThat(rows.get(0).row().payload()).isEqualTo(bytes("applied by attempt 3"));
    assertThat(rows)
        .extracting(e -> e.row().destination())
        .containsExactly("payments", "notifications");
    assertThat(db.count("SELECT COUNT(*) FROM " + EFFECTS)).isEqualTo(1);
  }

  @Test
  @DisplayName("lease mode: a stale owner fenced out sends nothing; the new owner's send stays")
  void staleOwnerSendsNothing() throws Exception {
    CountDownLatch bIsSending = new CountDownLatch(1);
    IdempotentConsumer b =
        IdempotentConsumer.builder("billing", store)
            .effect(
                store.transactional(
                    (m, attempt, c) -> {
                      insertEffect(c, m.id(), "B");
                      bIsSending.countDown();
                      // Waits for A's uncommitted row of the same id until A's rollback.
                      outbox.sendsOf(attempt, c).send("payments", m.id(), bytes("B"));
                    }))
            .config(config())
            .build();
    CompletableFuture<Outcome> bDone = new CompletableFuture<>();
    IdempotentConsumer a =
        IdempotentConsumer.builder("billing", store)
            .effect(
                store.transactional(
                    (m, attempt, c) -> {
                      insertEffect(c, m.id(), "A");
                      outbox.sendsOf(attempt, c).send("payments", m.id(), bytes("A"));
                      // A stalls past its lease; B takes the message over meanwhile.
                      db.execute(
                          "UPDATE "
                              + INBOX
                              + " SET lease_until = "
                              + db.hoursEarlier("lease_until", 1));
                      Thread tb =
                          new Thread(
                              () -> {
                                try {
                                  bDone.complete(b.consume(m));
                                } catch (RuntimeException e) {
                                  bDone.completeExceptionally(e);
                                }
                              });
                      tb.start();
                      assertThat(bIsSending.await(60, TimeUnit.SECONDS)).isTrue();
                    }))
            .config(config())
            .build();

    assertThatThrownBy(() -> a.consume(Message.of("pay-stale")))
        .isInstanceOf(LeaseLostException.class);
    assertThat(bDone.get(60, TimeUnit.SECONDS).status()).isEqualTo(Status.APPLIED);
    List<Entry> rows = outboxRows();
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).row().id()).isEqualTo(OutgoingIds.derived("billing", "pay-stale", 0));
    assertThat(rows.get(0).row().payload()).isEqualTo(bytes("B"));
    assertThat(db.count("SELECT COUNT(*) FROM " + EFFECTS + " WHERE worker = 'A'")).isZero();
  }

  @Test
  @DisplayName(
      "batch: each message's sends commit with the batch; a failing item's are rolled back")
  void batchHandlerSends() {
    BatchConsumer consumer =
        BatchConsumer.builder("billing", store)
            .handler(
                (messages, c) -> {
                  for (Message m : messages) {
                    insertEffect(c, m.id(), "batch");
                    outbox.sendsOf("billing", m, c).send("payments", m.id(), m.payload());
                  }
                  if (messages.stream().anyMatch(m -> m.id().equals("b-2"))) {
                    throw new BatchItemFailedException(
                        List.of("b-2"), new IllegalStateException("bad amount"));
                  }
                })
            .config(config())
            .build();
    List<Outcome> outcomes =
        consumer.consume(
            List.of(
                Message.of("b-1", "in", bytes("one")),
                Message.of("b-2", "in", bytes("two")),
                Message.of("b-3", "in", bytes("three"))));
    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.FAILED, Status.APPLIED);
    assertThat(outboxRows())
        .extracting(e -> e.row().id())
        .containsExactlyInAnyOrder(
            OutgoingIds.derived("billing", "b-1", 0), OutgoingIds.derived("billing", "b-3", 0));
  }

  private List<Entry> outboxRows() {
    return outbox.admin().list(State.PENDING, 100);
  }

  /** Moves the inbox's retry times into the past, as if the backoff had run out. */
  private void endBackoff() throws SQLException {
    db.execute("UPDATE " + INBOX + " SET lease_until = " + db.hoursEarlier("lease_until", 1));
  }

  static InboxConfig config() {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(5)
                .initialDelay(Duration.ofSeconds(10))
                .jitter(0)
                .build())
        .build();
  }

  static void insertEffect(Connection c, String messageId, String worker) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + EFFECTS + " (message_id, worker) VALUES (?, ?)")) {
      ps.setString(1, messageId);
      ps.setString(2, worker);
      ps.executeUpdate();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
