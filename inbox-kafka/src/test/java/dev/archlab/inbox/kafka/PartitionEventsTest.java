package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.kafka.KafkaInboxLoopTest.Running;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.testkit.Await;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The partition callbacks and {@link PausedPartitions} on a real broker: a partition paused on
 * IN_FLIGHT (its id held under a lease by another instance) shows as paused, and after the holder
 * finishes it resumes, passes the record and leaves the paused set.
 */
class PartitionEventsTest {

  @BeforeAll
  static void databases() {
    KafkaInboxLoopTest.databases();
  }

  /** The callbacks of one partition, in order, as text. */
  private final Map<TopicPartition, List<String>> events = new ConcurrentHashMap<>();

  private void event(TopicPartition tp, String what) {
    events.computeIfAbsent(tp, k -> new CopyOnWriteArrayList<>()).add(what);
  }

  @Test
  void aPartitionPausedOnInFlightShowsInTheListenerAndTheCountUntilItResumes() throws Exception {
    String name = KafkaInboxLoopTest.newName("events");
    try (KafkaFixture kafka = new KafkaFixture(name, 2)) {
      // Another instance holds "held" under a long lease: this loop answers IN_FLIGHT.
      BeginResult hold =
          KafkaInboxLoopTest.store.begin(
              new BeginRequest(name, "held", Duration.ofHours(1), 3, null));
      assertThat(hold.claimed()).isTrue();
      long heldOffset = kafka.send(0, "held", "x");
      kafka.send(0, "after-held", "x");
      kafka.send(1, "p1-a", "x");
      kafka.send(1, "p1-b", "x");
      TopicPartition p0 = new TopicPartition(kafka.topic, 0);
      TopicPartition p1 = new TopicPartition(kafka.topic, 1);

      PausedPartitions paused = new PausedPartitions();
      List<Set<TopicPartition>> pausedSetsSeen = new CopyOnWriteArrayList<>();
      CountDownLatch pausedTwice = new CountDownLatch(2);
      KafkaLoopListener recorder =
          new KafkaLoopListener() {
            @Override
            public void assigned(Collection<TopicPartition> partitions) {
              partitions.forEach(tp -> event(tp, "assigned"));
            }

            @Override
            public void paused(TopicPartition tp, long offset, Duration retryAfter) {
              event(tp, "paused@" + offset);
              // Called after PausedPartitions on the same thread: what a gauge read now shows.
              pausedSetsSeen.add(paused.partitions());
              pausedTwice.countDown();
            }

            @Override
            public void resumed(TopicPartition tp) {
              event(tp, "resumed");
            }

            @Override
            public void revoked(Collection<TopicPartition> partitions) {
              partitions.forEach(tp -> event(tp, "revoked"));
            }

            @Override
            public void lost(Collection<TopicPartition> partitions) {
              partitions.forEach(tp -> event(tp, "lost"));
            }
          };
      IdempotentConsumer consumer =
          IdempotentConsumer.builder(name, KafkaInboxLoopTest.store)
              .handler(
                  (msg, a) -> {
                    try (Connection c = KafkaInboxLoopTest.ds.getConnection()) {
                      Effects.insert(c, name, msg.id());
                    }
                  })
              .build();
      try (Running running =
          new Running(
              KafkaInboxLoop.builder(kafka.consumerProps(), consumer.asMode())
                  .topics(kafka.topic)
                  .listener(KafkaLoopListener.all(paused, recorder))
                  .maxPause(Duration.ofMillis(200))
                  .build())) {
        // Paused, resumed and paused again while the lease is held: the record stays unfinished.
        assertThat(pausedTwice.await(Await.LIMIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        Await.until(
            "partition 1 committed to its end",
            () -> Long.valueOf(2).equals(kafka.committed().get(1)));
        assertThat(pausedSetsSeen).allMatch(s -> s.equals(Set.of(p0)));
        assertThat(events.get(p0)).startsWith("assigned", "paused@" + heldOffset, "resumed");
        assertThat(events.get(p1)).containsExactly("assigned");
        assertThat(kafka.committed().getOrDefault(0, 0L)).isEqualTo(heldOffset);

        // The holder finishes: the next read is DUPLICATE and the partition moves on.
        KafkaInboxLoopTest.store.complete(hold.claim(), null);
        Await.until("partition 0 committed to its end", kafka::allCommitted);
        assertThat(paused.count()).isZero();
        assertThat(paused.partitions()).isEmpty();
        // Every pause was on the held message: its time is counted as IN_FLIGHT and only there.
        assertThat(paused.pausedTime(PausedPartitions.Reason.IN_FLIGHT)).isPositive();
        assertThat(paused.pausedTime(PausedPartitions.Reason.FAILED)).isZero();
        assertThat(paused.pausedTime(PausedPartitions.Reason.ERROR)).isZero();
        List<String> p0Events = events.get(p0);
        assertThat(p0Events.get(p0Events.size() - 1)).isEqualTo("resumed");
        // Every pause was followed by a resume, and every pause was at the held record.
        for (int i = 1; i < p0Events.size(); i++) {
          assertThat(p0Events.get(i)).isEqualTo(i % 2 == 1 ? "paused@" + heldOffset : "resumed");
        }
      }
      // Closing the loop revokes its partitions.
      assertThat(events.get(p0)).endsWith("revoked");
      assertThat(events.get(p1)).containsExactly("assigned", "revoked");
      assertThat(paused.count()).isZero();
      assertThat(Effects.counts(KafkaInboxLoopTest.ds, name))
          .containsOnly(Map.entry("after-held", 1), Map.entry("p1-a", 1), Map.entry("p1-b", 1));
    }
  }
}
