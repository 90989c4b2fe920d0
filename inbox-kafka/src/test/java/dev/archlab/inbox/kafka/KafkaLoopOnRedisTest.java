package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.kafka.KafkaInboxLoopTest.Running;
import dev.archlab.inbox.redis.RedisStoreFixture;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The loop on the Redis store: a real broker and a real {@code redis-server} (started by {@code
 * inbox-redis}'s test fixtures), with no JDBC anywhere in the consumer. The adapter needs only a
 * {@code ConsumeMode} from {@code inbox-core}, here the lease mode of an {@link
 * IdempotentConsumer}.
 */
class KafkaLoopOnRedisTest {

  @Test
  void duplicatesApplyOnceDeadAndIdlessRecordsAreDeadLetteredAndAHeldRecordStopsTheCommit()
      throws Exception {
    String name = KafkaInboxLoopTest.newName("redis");
    try (RedisStoreFixture redis = RedisStoreFixture.standalone(4);
        KafkaFixture kafka = new KafkaFixture(name, 2)) {
      // Another instance holds "held" under a long lease: this loop is answered IN_FLIGHT there.
      assertThat(
              redis
                  .store()
                  .begin(new BeginRequest(name, "held", Duration.ofHours(1), 3, null))
                  .claimed())
          .isTrue();
      int n = 60;
      for (int i = 0; i < n; i++) {
        kafka.send(0, "id-" + i, "payload");
      }
      for (int i = 0; i < n; i += 5) {
        kafka.send(0, "id-" + i, "payload"); // a redelivery the producer made
      }
      kafka.send(0, "poison", "payload");
      long noId = kafka.send(0, null, "no id");
      kafka.send(1, "before-held", "payload");
      long heldOffset = kafka.send(1, "held", "payload");
      kafka.send(1, "after-held", "payload");

      Map<String, Integer> effects = new ConcurrentHashMap<>();
      IdempotentConsumer consumer =
          IdempotentConsumer.builder(name, redis.store())
              .config(
                  InboxConfig.custom().retryPolicy(KafkaInboxLoopTest.TWO_QUICK_ATTEMPTS).build())
              .handler(
                  (m, a) -> {
                    if (m.id().equals("poison")) {
                      throw new IllegalStateException("poison message");
                    }
                    effects.merge(m.id(), 1, Integer::sum);
                  })
              .build();
      TopicPartition p1 = new TopicPartition(kafka.topic, 1);
      List<Long> p1Pauses = new CopyOnWriteArrayList<>();
      KafkaLoopListener pauses =
          new KafkaLoopListener() {
            @Override
            public void paused(TopicPartition tp, long offset, Duration retryAfter) {
              if (tp.equals(p1)) {
                p1Pauses.add(offset);
              }
            }
          };
      try (Running running =
          new Running(
              KafkaInboxLoop.builder(kafka.consumerProps(), consumer.asMode())
                  .topics(kafka.topic)
                  .listener(pauses)
                  .maxPause(Duration.ofMillis(100))
                  .build())) {
        long end0 = kafka.endOffsets().get(0);
        Await.until(
            "partition 0 committed to its end and partition 1 read again at the held record",
            () -> Long.valueOf(end0).equals(kafka.committed().get(0)) && p1Pauses.size() >= 2);
      }

      assertThat(effects).hasSize(n + 1); // id-0..id-59 and before-held; nothing after "held"
      assertThat(effects.values()).allMatch(c -> c == 1);
      assertThat(effects).containsKey("before-held").doesNotContainKey("after-held");
      assertThat(p1Pauses).containsOnly(heldOffset);
      assertThat(kafka.committed().get(1)).isEqualTo(heldOffset);

      List<String> deadLetters = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : kafka.deadLetters()) {
        String id = KafkaFixture.header(r, KafkaIds.DEFAULT_HEADER);
        String error = KafkaFixture.header(r, DeadLetterPublisher.LAST_ERROR);
        if (id == null) {
          assertThat(KafkaFixture.header(r, DeadLetterPublisher.ORIGINAL_OFFSET))
              .isEqualTo(Long.toString(noId));
          deadLetters.add("no id: " + error);
        } else {
          assertThat(KafkaFixture.header(r, DeadLetterPublisher.ATTEMPTS)).isEqualTo("2");
          deadLetters.add(id + ": " + error);
        }
      }
      assertThat(deadLetters)
          .containsExactlyInAnyOrder(
              "poison: java.lang.IllegalStateException: poison message", "no id: no message id");
      consumer.close();
    }
  }
}
