package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.kafka.KafkaInboxLoopTest.Mode;
import dev.archlab.inbox.kafka.KafkaInboxLoopTest.Running;
import dev.archlab.inbox.testkit.Await;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The loop on the consumer group protocol of KIP-848 ({@code group.protocol=consumer}), which the
 * 4.x broker serves by default: records consumed once, poison dead-lettered once, and a second
 * member joining takes partitions over (revoked from the first, its finished offsets committed)
 * without a lost or doubled effect.
 */
class ConsumerGroupProtocolTest {

  @BeforeAll
  static void databases() {
    KafkaInboxLoopTest.databases();
  }

  /** The partitions a loop holds now, kept from its rebalance callbacks. */
  static final class Owned implements KafkaLoopListener {
    final Set<TopicPartition> now = ConcurrentHashMap.newKeySet();
    final List<TopicPartition> revoked = new CopyOnWriteArrayList<>();

    @Override
    public void assigned(Collection<TopicPartition> partitions) {
      now.addAll(partitions);
    }

    @Override
    public void revoked(Collection<TopicPartition> partitions) {
      now.removeAll(partitions);
      revoked.addAll(partitions);
    }

    @Override
    public void lost(Collection<TopicPartition> partitions) {
      now.removeAll(partitions);
    }
  }

  @Test
  void theNewConsumerGroupProtocolConsumesOnceAcrossAMemberJoining() throws Exception {
    String name = KafkaInboxLoopTest.newName("kip848");
    try (KafkaFixture kafka = new KafkaFixture(name, 4)) {
      Map<String, Object> props = kafka.consumerProps();
      props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
      for (int i = 0; i < 100; i++) {
        kafka.send(i % 4, "first-" + i, "x");
      }
      kafka.send(1, "poison-1", "x");

      Owned a = new Owned();
      Owned b = new Owned();
      try (Running first =
          new Running(
              KafkaInboxLoop.builder(props, KafkaInboxLoopTest.mode(Mode.ONE_COMMIT, name))
                  .topics(kafka.topic)
                  .listener(a)
                  .build())) {
        Await.until("the first member committed every record", kafka::allCommitted);
        assertThat(a.now).hasSize(4);
        try (Admin admin = kafka.broker.admin()) {
          GroupType type =
              admin
                  .describeConsumerGroups(List.of(kafka.group))
                  .all()
                  .get(60, TimeUnit.SECONDS)
                  .get(kafka.group)
                  .type();
          assertThat(type).as("the group runs the new protocol").isEqualTo(GroupType.CONSUMER);
        }

        try (Running second =
            new Running(
                KafkaInboxLoop.builder(props, KafkaInboxLoopTest.mode(Mode.ONE_COMMIT, name))
                    .topics(kafka.topic)
                    .listener(b)
                    .build())) {
          Await.until(
              "the second member took partitions over",
              () -> !b.now.isEmpty() && a.now.size() + b.now.size() == 4);
          assertThat(a.revoked).containsAll(b.now);
          for (int i = 0; i < 100; i++) {
            kafka.send(i % 4, "second-" + i, "x");
            // A copy of an id the first member applied, on another partition.
            kafka.send((i + 1) % 4, "first-" + i, "x");
          }
          kafka.send(2, "poison-2", "x");
          Await.until("both members committed every record", kafka::allCommitted);
        }
      }

      Map<String, Integer> effects = Effects.counts(KafkaInboxLoopTest.ds, name);
      assertThat(effects).hasSize(200);
      assertThat(effects.values()).allMatch(c -> c == 1);
      List<ConsumerRecord<byte[], byte[]>> dlt = kafka.deadLetters();
      assertThat(dlt)
          .extracting(r -> KafkaFixture.header(r, KafkaIds.DEFAULT_HEADER))
          .containsExactlyInAnyOrder("poison-1", "poison-2");
      assertThat(dlt)
          .allMatch(r -> KafkaFixture.header(r, DeadLetterPublisher.LAST_ERROR).contains("poison"));
    }
  }
}
