package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.kafka.KafkaInboxLoopTest.Mode;
import dev.archlab.inbox.kafka.KafkaInboxLoopTest.Running;
import dev.archlab.inbox.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A process parks a message DEAD and is killed before its dead letter is confirmed: the record is
 * DEAD in the inbox and nothing is on the dead-letter topic. The redelivery is answered DEAD
 * (DEAD_SEEN, no throwable), and the dead letter it publishes must still carry the error and
 * attempts the inbox record keeps.
 */
class DeadLetterKeepsLastErrorTest {

  @BeforeAll
  static void databases() {
    KafkaInboxLoopTest.databases();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRedeliveryOfAMessageParkedByAKilledProcessPublishesTheStoredError(Mode m) throws Exception {
    String name = KafkaInboxLoopTest.newName("dead-kept-" + m.name().toLowerCase());
    try (KafkaFixture kafka = new KafkaFixture(name, 1)) {
      String id = "poison-parked-earlier";
      // The killed process: its one attempt failed and parked the message DEAD; it died before
      // publishing the dead letter, so the topic has none.
      try (IdempotentConsumer killed =
          IdempotentConsumer.builder(name, KafkaInboxLoopTest.store)
              .config(
                  InboxConfig.custom()
                      .retryPolicy(RetryPolicy.custom().maxAttempts(1).build())
                      .build())
              .handler(
                  (msg, a) -> {
                    throw new IllegalStateException("ledger refused " + msg.id() + " (code 17)");
                  })
              .build()) {
        Outcome parked =
            killed.consume(Message.of(id, kafka.topic, "x".getBytes(StandardCharsets.UTF_8)));
        assertThat(parked.status()).isEqualTo(Outcome.Status.DEAD);
      }
      InboxRecord stored = KafkaInboxLoopTest.store.find(name, id).orElseThrow();
      assertThat(stored.lastError()).contains("ledger refused " + id + " (code 17)");
      assertThat(kafka.deadLetters()).isEmpty();

      // Its redelivery, twice (in batch mode the second copy is answered from the first's
      // outcome in the same call), then a healthy record behind it.
      long first = kafka.send(0, id, "x");
      long second = kafka.send(0, id, "x");
      kafka.send(0, "healthy", "x");
      try (Running running =
          new Running(
              KafkaInboxLoop.builder(kafka.consumerProps(), KafkaInboxLoopTest.mode(m, name))
                  .topics(kafka.topic)
                  .build())) {
        Await.until("every record committed", kafka::allCommitted);
      }

      List<ConsumerRecord<byte[], byte[]>> dlt = kafka.deadLetters();
      List<Long> offsets = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : dlt) {
        assertThat(KafkaFixture.header(r, KafkaIds.DEFAULT_HEADER)).isEqualTo(id);
        assertThat(KafkaFixture.header(r, DeadLetterPublisher.LAST_ERROR))
            .isEqualTo(stored.lastError());
        assertThat(KafkaFixture.header(r, DeadLetterPublisher.ATTEMPTS))
            .isEqualTo(Integer.toString(stored.attempts()));
        offsets.add(Long.parseLong(KafkaFixture.header(r, DeadLetterPublisher.ORIGINAL_OFFSET)));
      }
      assertThat(offsets).containsExactly(first, second);
      assertThat(Effects.counts(KafkaInboxLoopTest.ds, name)).containsOnly(Map.entry("healthy", 1));
    }
  }
}
