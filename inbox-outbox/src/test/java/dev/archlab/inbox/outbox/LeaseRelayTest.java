package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.OutboxAdmin.Counts;
import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Relays on the databases without SKIP LOCKED, where rows are claimed with leases. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#embedded")
class LeaseRelayTest {

  static final String TABLE = "lease_outbox";

  @Parameter OutboxDatabase db;

  Outbox outbox;

  @BeforeEach
  void freshTable() throws SQLException {
    db.drop(TABLE);
    outbox = Outbox.builder(db.dataSource()).table(TABLE).build();
    outbox.createSchemaIfMissing();
  }

  @Test
  @DisplayName("publishes to a real Kafka broker in key order and marks the rows SENT")
  void publishesToKafka() throws SQLException {
    String topic = KafkaTopics.create("lease-" + db.name(), 2);
    send(
        new OutboxMessage("a-0", topic, "a", bytes("0"), null),
        new OutboxMessage("b-0", topic, "b", bytes("0"), null),
        new OutboxMessage("a-1", topic, "a", bytes("1"), null));
    try (OutboxRelay relay =
        OutboxRelay.builder(
                outbox, KafkaOutboxPublisher.builder(KafkaTopics.broker().bootstrap()).build())
            .build()) {
      assertThat(relay.relayOnce()).isEqualTo(3);
      assertThat(relay.relayOnce()).isZero();
    }
    assertThat(KafkaTopics.readAll(topic))
        .filteredOn(r -> r.key().equals("a"))
        .extracting(r -> KafkaTopics.header(r, "message-id"))
        .containsExactly("a-0", "a-1");
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 3, 0));
  }

  @Test
  @DisplayName(
      "a held lease keeps other relays off; once it ran out, the late relay's marks are fenced")
  void leaseExcludesThenFences() throws Exception {
    send(
        new OutboxMessage("k-0", "t", "k", bytes("0"), null),
        new OutboxMessage("k-1", "t", "k", bytes("1"), null));
    // A's broker would park everything: if its late marks got through, the rows would be DEAD.
    TwoRelaysTest.GatedPublisher gated =
        new TwoRelaysTest.GatedPublisher(new RecordingPublisher(r -> PublishResult.dead("late")));
    // B's broker is busy: the rows stay PENDING under B's claim, where A's late marks could land.
    RecordingPublisher seenByB = new RecordingPublisher(r -> PublishResult.retry("b busy"));
    try (OutboxRelay a = OutboxRelay.builder(outbox, gated).build();
        OutboxRelay b = OutboxRelay.builder(outbox, seenByB).build()) {
      CompletableFuture<Integer> roundOfA = CompletableFuture.supplyAsync(a::relayOnce);
      assertThat(gated.entered.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(gated.given).extracting(OutboxRow::id).containsExactly("k-0", "k-1");

      // A publishes outside any transaction, so B can claim; A's lease keeps the rows from it.
      assertThat(b.relayOnce()).isZero();

      // A stalls past its lease: B takes the rows over and tries them, in order.
      db.execute(
          "UPDATE " + TABLE + " SET next_attempt_at = " + db.hoursEarlier("next_attempt_at", 1));
      assertThat(b.relayOnce()).isEqualTo(2);
      assertThat(seenByB.published).extracting(OutboxRow::id).containsExactly("k-0", "k-1");

      gated.release.countDown();
      assertThat(roundOfA.get(60, TimeUnit.SECONDS)).isEqualTo(2);
    }
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(2, 0, 0));
    assertThat(outbox.admin().list(OutboxAdmin.State.PENDING, 10))
        .allSatisfy(
            e -> {
              assertThat(e.row().attempts()).isEqualTo(2);
              assertThat(e.lastError()).isEqualTo("b busy");
            });
  }

  private void send(OutboxMessage... messages) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (OutboxMessage m : List.of(messages)) {
        outbox.send(c, m);
      }
      c.commit();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
