package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.OutboxAdmin.Counts;
import dev.archlab.inbox.outbox.OutboxAdmin.Entry;
import dev.archlab.inbox.outbox.OutboxAdmin.State;
import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** One relay on a real database and a real Kafka broker. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#servers")
class KafkaRelayTest {

  static final String TABLE = "relay_outbox";

  @Parameter OutboxDatabase db;

  Outbox outbox;

  @BeforeEach
  void freshTable() throws SQLException {
    db.drop(TABLE);
    outbox = Outbox.builder(db.dataSource()).table(TABLE).build();
    outbox.createSchemaIfMissing();
  }

  static KafkaOutboxPublisher kafka() {
    return KafkaOutboxPublisher.builder(KafkaTopics.broker().bootstrap()).build();
  }

  @Test
  @DisplayName("publishes each row with its id header, key and headers; SENT only after the ack")
  void publishesAndMarksSent() throws SQLException {
    String topic = KafkaTopics.create("relay-" + db.name(), 2);
    send(
        new OutboxMessage("m-1", topic, "k1", bytes("k1-0"), Map.of("type", "created")),
        new OutboxMessage("m-2", topic, "k2", bytes("k2-0"), null),
        new OutboxMessage("m-3", topic, "k1", bytes("k1-1"), null));
    try (OutboxRelay relay = OutboxRelay.builder(outbox, kafka()).build()) {
      assertThat(relay.relayOnce()).isEqualTo(3);
      assertThat(relay.relayOnce()).isZero();
    }
    List<ConsumerRecord<String, byte[]>> records = KafkaTopics.readAll(topic);
    assertThat(records).hasSize(3);
    assertThat(records)
        .filteredOn(r -> r.key().equals("k1"))
        .extracting(r -> KafkaTopics.header(r, "message-id"))
        .containsExactly("m-1", "m-3");
    ConsumerRecord<String, byte[]> first =
        records.stream()
            .filter(r -> "m-1".equals(KafkaTopics.header(r, "message-id")))
            .findFirst()
            .orElseThrow();
    assertThat(first.value()).isEqualTo(bytes("k1-0"));
    assertThat(KafkaTopics.header(first, "type")).isEqualTo("created");
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 3, 0));
    assertThat(outbox.admin().list(State.SENT, 10))
        .allSatisfy(e -> assertThat(e.sentAt()).isNotNull());
  }

  @Test
  @DisplayName("a too-large row and an unknown topic are DEAD with the reason; the key goes on")
  void parksWhatCannotBePublished() throws SQLException {
    String topic = KafkaTopics.create("park-" + db.name(), 1);
    send(
        new OutboxMessage("small-1", topic, "k", bytes("1"), null),
        new OutboxMessage("huge", topic, "k", new byte[2 * 1024 * 1024], null),
        new OutboxMessage("small-2", topic, "k", bytes("2"), null),
        new OutboxMessage("lost", "no-such-topic-" + db.name(), "k", bytes("x"), null));
    try (OutboxRelay relay = OutboxRelay.builder(outbox, kafka()).build()) {
      assertThat(relay.relayOnce()).isEqualTo(4);
    }
    List<Entry> dead = outbox.admin().list(State.DEAD, 10);
    assertThat(dead).extracting(e -> e.row().id()).containsExactly("huge", "lost");
    assertThat(dead.get(0).lastError()).contains("RecordTooLargeException");
    assertThat(dead.get(1).lastError()).contains("unknown topic 'no-such-topic-" + db.name() + "'");
    assertThat(KafkaTopics.readAll(topic))
        .extracting(r -> KafkaTopics.header(r, "message-id"))
        .containsExactly("small-1", "small-2");

    // An operator retries the parked row: due again, and published with the topic now there.
    KafkaTopics.broker().createTopics(1, "no-such-topic-" + db.name());
    assertThat(outbox.admin().retryDead("lost")).isTrue();
    assertThat(outbox.admin().retryDead("lost")).isFalse();
    try (OutboxRelay relay = OutboxRelay.builder(outbox, kafka()).build()) {
      assertThat(relay.relayOnce()).isEqualTo(1);
    }
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 3, 1));
  }

  @Test
  @DisplayName(
      "a failed publish backs off on the database clock and holds back later rows of its key")
  void retryBacksOffAndHoldsTheKey() throws SQLException {
    AtomicBoolean failing = new AtomicBoolean(true);
    RecordingPublisher publisher =
        new RecordingPublisher(
            row -> failing.get() ? PublishResult.retry("broker busy") : PublishResult.sent());
    try (OutboxRelay relay =
        OutboxRelay.builder(outbox, publisher)
            .retryBackoff(Duration.ofMinutes(10), Duration.ofHours(1))
            .build()) {
      send(new OutboxMessage("k-1", "t", "k", bytes("1"), null));
      assertThat(relay.relayOnce()).isEqualTo(1);
      Entry failed = outbox.admin().list(State.PENDING, 1).get(0);
      assertThat(failed.row().attempts()).isEqualTo(1);
      assertThat(failed.lastError()).isEqualTo("broker busy");
      assertThat(count("next_attempt_at > " + db.now())).isEqualTo(1);

      send(new OutboxMessage("k-2", "t", "k", bytes("2"), null));
      send(new OutboxMessage("other", "t", "other-key", bytes("3"), null));
      failing.set(false);
      // k-1 waits out its backoff; k-2 may not overtake it; the other key goes on.
      assertThat(relay.relayOnce()).isEqualTo(1);
      assertThat(publisher.published).extracting(OutboxRow::id).containsExactly("k-1", "other");

      db.execute(
          "UPDATE " + TABLE + " SET next_attempt_at = " + db.hoursEarlier("next_attempt_at", 1));
      assertThat(relay.relayOnce()).isEqualTo(2);
      assertThat(publisher.published)
          .extracting(OutboxRow::id)
          .containsExactly("k-1", "other", "k-1", "k-2");
      assertThat(publisher.published.get(2).attempts()).isEqualTo(1);
    }
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 3, 0));
  }

  @Test
  @DisplayName("backoff doubles per failure up to its maximum")
  void backoffDoubles() {
    try (OutboxRelay relay =
        OutboxRelay.builder(outbox, new RecordingPublisher())
            .retryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .build()) {
      assertThat(relay.backoff(1)).isEqualTo(Duration.ofSeconds(1));
      assertThat(relay.backoff(2)).isEqualTo(Duration.ofSeconds(2));
      assertThat(relay.backoff(3)).isEqualTo(Duration.ofSeconds(4));
      assertThat(relay.backoff(4)).isEqualTo(Duration.ofSeconds(5));
      assertThat(relay.backoff(1000)).isEqualTo(Duration.ofSeconds(5));
    }
  }

  @Test
  @DisplayName("prune deletes SENT rows older than the retention, nothing else")
  void prunesSentRows() throws SQLException {
    RecordingPublisher publisher =
        new RecordingPublisher(
            row -> row.id().equals("dead") ? PublishResult.dead("refused") : PublishResult.sent());
    try (OutboxRelay relay =
        OutboxRelay.builder(outbox, publisher).retention(Duration.ofHours(1)).build()) {
      send(
          new OutboxMessage("old", "t", "a", bytes("1"), null),
          new OutboxMessage("recent", "t", "b", bytes("2"), null),
          new OutboxMessage("dead", "t", "c", bytes("3"), null));
      assertThat(relay.relayOnce()).isEqualTo(3);
      send(new OutboxMessage("pending", "t", "d", bytes("4"), null));
      db.execute(
          "UPDATE "
              + TABLE
              + " SET sent_at = "
              + db.hoursEarlier("sent_at", 2)
              + ", created_at = "
              + db.hoursEarlier("created_at", 2)
              + " WHERE message_id = 'old'");
      assertThat(relay.pruneSent()).isEqualTo(1);
      assertThat(relay.pruneSent()).isZero();
    }
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(1, 1, 1));
    assertThat(outbox.admin().list(State.SENT, 10))
        .extracting(e -> e.row().id())
        .containsExactly("recent");
  }

  private long count(String where) throws SQLException {
    return db.count("SELECT COUNT(*) FROM " + TABLE + " WHERE " + where);
  }

  private void send(OutboxMessage... messages) throws SQLException {
    RelayTestSupport.send(db, outbox, messages);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
