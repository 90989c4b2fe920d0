package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Two relays on one table, publishing to a real Kafka broker. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#servers")
class TwoRelaysTest {

  static final String TABLE = "two_relays_outbox";

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

  /** A publisher that stops inside {@link #publish} until released, holding its round open. */
  static final class GatedPublisher implements OutboxPublisher {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<OutboxRow> given = new ArrayList<>();
    private final OutboxPublisher delegate;

    GatedPublisher(OutboxPublisher delegate) {
      this.delegate = delegate;
    }

    @Override
    public List<PublishResult> publish(List<OutboxRow> rows) {
      given.addAll(rows);
      entered.countDown();
      try {
        if (!release.await(2, TimeUnit.MINUTES)) {
          throw new IllegalStateException("never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return delegate.publish(rows);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  @DisplayName(
      "while one relay holds a key's rows, the other publishes other keys, none of that key")
  void aHeldKeyIsNotPublishedByTheOtherRelay() throws Exception {
    String topic = KafkaTopics.create("gate-" + db.name(), 3);
    send(message(topic, "hot", 0), message(topic, "hot", 1), message(topic, "hot", 2));
    GatedPublisher gated = new GatedPublisher(kafka());
    RecordingPublisher seenByB = new RecordingPublisher();
    try (OutboxRelay a = OutboxRelay.builder(outbox, gated).batchSize(2).build();
        OutboxRelay b = OutboxRelay.builder(outbox, new Forwarding(seenByB, kafka())).build()) {
      CompletableFuture<Integer> roundOfA = CompletableFuture.supplyAsync(a::relayOnce);
      assertThat(gated.entered.await(60, TimeUnit.SECONDS)).isTrue();
      // A holds hot-0 (the head) and hot-1 (its next row) in an open round.
      assertThat(gated.given).extracting(OutboxRow::id).containsExactly("hot-0", "hot-1");

      send(message(topic, "a", 0), message(topic, "b", 0));
      assertThat(b.relayOnce()).isEqualTo(2);
      assertThat(seenByB.published).extracting(OutboxRow::id).containsExactly("a-0", "b-0");

      gated.release.countDown();
      assertThat(roundOfA.get(60, TimeUnit.SECONDS)).isEqualTo(2);
      assertThat(b.relayOnce()).isEqualTo(1);
      assertThat(seenByB.published).extracting(OutboxRow::id).endsWith("hot-2");
    }
    Map<String, List<Integer>> byKey = byKey(KafkaTopics.readAll(topic));
    assertThat(byKey.get("hot")).containsExactly(0, 1, 2);
    assertThat(byKey.get("a")).containsExactly(0);
    assertThat(byKey.get("b")).containsExactly(0);
  }

  @Test
  @DisplayName("two running relays and a writer: every row published, none lost, each key in order")
  void twoRunningRelaysKeepEveryKeyInOrder() throws Exception {
    String topic = KafkaTopics.create("pair-" + db.name(), 3);
    int keys = 12;
    int perKey = 25;
    OutboxRelay a =
        OutboxRelay.builder(outbox, kafka())
            .batchSize(7)
            .pollInterval(Duration.ofMillis(5))
            .build();
    OutboxRelay b =
        OutboxRelay.builder(outbox, kafka())
            .batchSize(5)
            .pollInterval(Duration.ofMillis(5))
            .build();
    a.start();
    b.start();
    try {
      // Small transactions that interleave keys, while both relays claim.
      for (int i = 0; i < perKey; i++) {
        List<OutboxMessage> batch = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
          batch.add(message(topic, "key" + k, i));
          if (batch.size() == 4) {
            send(batch.toArray(OutboxMessage[]::new));
            batch.clear();
          }
        }
        send(batch.toArray(OutboxMessage[]::new));
      }
    } finally {
      a.close();
      b.close();
    }
    // Whatever the running relays left is drained here, by one more relay.
    try (OutboxRelay drain = OutboxRelay.builder(outbox, kafka()).build()) {
      while (drain.relayOnce() > 0) {
        // each round publishes more
      }
    }
    assertThat(outbox.admin().counts()).isEqualTo(new OutboxAdmin.Counts(0, keys * perKey, 0));
    List<ConsumerRecord<String, byte[]>> records = KafkaTopics.readAll(topic);
    Set<String> ids = new HashSet<>();
    records.forEach(r -> ids.add(KafkaTopics.header(r, "message-id")));
    assertThat(ids).hasSize(keys * perKey);
    Map<String, List<Integer>> byKey = byKey(records);
    for (int k = 0; k < keys; k++) {
      // First occurrences in order: a duplicate (after a failed round) may only repeat a number.
      List<Integer> firsts = byKey.get("key" + k).stream().distinct().toList();
      assertThat(firsts).as("key%d", k).isSorted().hasSize(perKey);
      assertThat(byKey.get("key" + k)).as("key%d", k).isSorted();
    }
  }

  /** Forwards to a delegate, showing the rows to a recorder first. */
  static final class Forwarding implements OutboxPublisher {
    private final RecordingPublisher recorder;
    private final OutboxPublisher delegate;

    Forwarding(RecordingPublisher recorder, OutboxPublisher delegate) {
      this.recorder = recorder;
      this.delegate = delegate;
    }

    @Override
    public List<PublishResult> publish(List<OutboxRow> rows) {
      recorder.publish(rows);
      return delegate.publish(rows);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private static Map<String, List<Integer>> byKey(List<ConsumerRecord<String, byte[]>> records) {
    Map<String, List<Integer>> out = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : records) {
      out.computeIfAbsent(r.key(), k -> new ArrayList<>())
          .add(Integer.parseInt(new String(r.value(), StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static OutboxMessage message(String topic, String key, int index) {
    return new OutboxMessage(
        key + "-" + index,
        topic,
        key,
        String.valueOf(index).getBytes(StandardCharsets.UTF_8),
        null);
  }

  private void send(OutboxMessage... messages) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (OutboxMessage m : messages) {
        outbox.send(c, m);
      }
      c.commit();
    }
  }
}
