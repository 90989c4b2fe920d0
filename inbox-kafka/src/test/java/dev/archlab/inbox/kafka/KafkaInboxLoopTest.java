package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.testkit.Await;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The loop on a real broker (own JVM) with the inbox and the business table on PostgreSQL. */
class KafkaInboxLoopTest {

  static final RetryPolicy TWO_QUICK_ATTEMPTS =
      RetryPolicy.custom().maxAttempts(2).initialDelay(Duration.ofMillis(10)).jitter(0).build();

  static DataSource ds;
  static JdbcInboxStore store;

  @BeforeAll
  static void databases() {
    ds = TestPostgres.dataSource();
    store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    Effects.createTable(ds);
    KafkaBroker.get();
  }

  enum Mode {
    PER_MESSAGE,
    ONE_COMMIT,
    BATCH
  }

  static String newName(String base) {
    return base + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Handlers fail every attempt for ids starting with "poison". */
  static ConsumeMode mode(Mode mode, String name) {
    InboxConfig config = InboxConfig.custom().retryPolicy(TWO_QUICK_ATTEMPTS).build();
    switch (mode) {
      case PER_MESSAGE:
        return IdempotentConsumer.builder(name, store)
            .config(config)
            .handler(
                (m, a) -> {
                  failIfPoison(m);
                  // An effect outside the inbox's transaction, as per-message mode is for.
                  try (Connection c = ds.getConnection()) {
                    Effects.insert(c, name, m.id());
                  }
                })
            .build()
            .asMode();
      case ONE_COMMIT:
        return OneCommitConsumer.builder(name, store)
            .config(config)
            .handler(
                (m, a, c) -> {
                  failIfPoison(m);
                  Effects.insert(c, name, m.id());
                })
            .build()
            .asMode();
      case BATCH:
      default:
        return BatchConsumer.builder(name, store)
            .config(config)
            .handler(
                (messages, c) -> {
                  for (Message m : messages) {
                    failIfPoison(m);
                    Effects.insert(c, name, m.id());
                  }
                })
            .build()
            .asMode(100);
    }
  }

  static void failIfPoison(Message m) {
    if (m.id().startsWith("poison")) {
      throw new IllegalStateException("poison message " + m.id());
    }
  }

  /** Runs the loop on its own thread; closing the returned handle stops it and joins. */
  static final class Running implements AutoCloseable {
    final KafkaInboxLoop loop;
    final Thread thread;
    final List<Throwable> errors = new CopyOnWriteArrayList<>();

    Running(KafkaInboxLoop loop) {
      this.loop = loop;
      this.thread = new Thread(this::run, "loop-under-test");
      thread.start();
    }

    private void run() {
      try {
        loop.run();
      } catch (Throwable t) {
        errors.add(t);
      }
    }

    @Override
    public void close() throws InterruptedException {
      loop.close();
      thread.join(TimeUnit.SECONDS.toMillis(Await.LIMIT_SECONDS));
      assertThat(thread.isAlive()).as("loop thread ended").isFalse();
      assertThat(errors).as("loop errors").isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void duplicatesApplyOncePoisonAndRecordsWithoutIdReachTheDeadLetterTopicOnce(Mode m)
      throws Exception {
    String name = newName("dedup-" + m.name().toLowerCase());
    try (KafkaFixture kafka = new KafkaFixture(name, 3)) {
      int n = 300;
      Set<String> poison = Set.of("poison-1", "poison-2", "poison-3");
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ids.add("id-" + i);
      }
      ids.addAll(poison);
      int sent = 0;
      for (String id : ids) {
        kafka.send(sent++ % 3, id, "payload-" + id);
      }
      // 10 % sent again as separate records, to another partition than the first copy.
      for (int i = 0; i < n; i += 10) {
        kafka.send(sent++ % 3, "id-" + i, "payload-id-" + i);
      }
      long noIdA = kafka.send(0, null, "no id A");
      long noIdB = kafka.send(2, null, "no id B");

      try (Running running =
          new Running(
              KafkaInboxLoop.builder(kafka.consumerProps(), mode(m, name))
                  .topics(kafka.topic)
                  .parallelism(2)
                  .build())) {
        Await.until("every record committed", kafka::allCommitted);
      }

      Map<String, Integer> effects = Effects.counts(ds, name);
      assertThat(effects).hasSize(n);
      assertThat(effects.values()).allMatch(c -> c == 1);
      assertThat(effects.keySet()).doesNotContainAnyElementsOf(poison);

      List<ConsumerRecord<byte[], byte[]>> dlt = kafka.deadLetters();
      List<String> poisonInDlt = new ArrayList<>();
      List<Long> noIdOffsets = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : dlt) {
        String id = KafkaFixture.header(r, KafkaIds.DEFAULT_HEADER);
        assertThat(KafkaFixture.header(r, DeadLetterPublisher.ORIGINAL_TOPIC))
            .isEqualTo(kafka.topic);
        assertThat(KafkaFixture.header(r, DeadLetterPublisher.CONSUMER)).isEqualTo(name);
        if (id == null) {
          assertThat(KafkaFixture.header(r, DeadLetterPublisher.LAST_ERROR))
              .isEqualTo("no message id");
          noIdOffsets.add(
              Long.parseLong(KafkaFixture.header(r, DeadLetterPublisher.ORIGINAL_OFFSET)));
        } else {
          poisonInDlt.add(id);
          assertThat(KafkaFixture.header(r, DeadLetterPublisher.ATTEMPTS)).isEqualTo("2");
          assertThat(KafkaFixture.header(r, DeadLetterPublisher.LAST_ERROR))
              .contains("poison message " + id);
        }
      }
      // No kills and no rebalance: exactly once each.
      assertThat(poisonInDlt).containsExactlyInAnyOrderElementsOf(poison);
      assertThat(noIdOffsets).containsExactlyInAnyOrder(noIdA, noIdB);
    }
  }

  @Test
  void inFlightAndFailedPauseOnlyTheirPartitionAndTheCommitStopsAtTheUnfinishedRecord()
      throws Exception {
    String name = newName("pause");
    try (KafkaFixture kafka = new KafkaFixture(name, 2)) {
      // Another instance holds "held" under a long lease: this loop sees IN_FLIGHT.
      BeginResult hold = store.begin(new BeginRequest(name, "held", Duration.ofHours(1), 3, null));
      assertThat(hold.claimed()).isTrue();
      kafka.send(0, "before", "x");
      long heldOffset = kafka.send(0, "held", "x");
      kafka.send(0, "after-held", "x");
      // "flaky" fails its first attempt: FAILED pauses partition 1 until its retry.
      kafka.send(1, "p1-a", "x");
      long flakyOffset = kafka.send(1, "flaky", "x");
      kafka.send(1, "p1-b", "x");

      AtomicInteger flakyRuns = new AtomicInteger();
      Map<String, Integer> handled = new ConcurrentHashMap<>();
      IdempotentConsumer consumer =
          IdempotentConsumer.builder(name, store)
              .config(
                  InboxConfig.custom()
                      .retryPolicy(
                          RetryPolicy.custom()
                              .maxAttempts(3)
                              .initialDelay(Duration.ofMillis(10))
                              .jitter(0)
                              .build())
                      .build())
              .handler(
                  (msg, a) -> {
                    handled.merge(msg.id(), 1, Integer::sum);
                    if (msg.id().equals("flaky") && flakyRuns.incrementAndGet() == 1) {
                      throw new IllegalStateException("first attempt fails");
                    }
                    try (Connection c = ds.getConnection()) {
                      Effects.insert(c, name, msg.id());
                    }
                  })
              .build();
      Map<TopicPartition, List<Long>> pauses = new ConcurrentHashMap<>();
      List<Outcome> heldOutcomes = new CopyOnWriteArrayList<>();
      KafkaLoopListener listener =
          new KafkaLoopListener() {
            @Override
            public void paused(TopicPartition tp, long offset, Duration retryAfter) {
              pauses.computeIfAbsent(tp, k -> new CopyOnWriteArrayList<>()).add(offset);
            }

            @Override
            public void outcome(ConsumerRecord<byte[], byte[]> r, Outcome outcome) {
              if (outcome.messageId().equals("held")) {
                heldOutcomes.add(outcome);
              }
            }
          };
      TopicPartition p0 = new TopicPartition(kafka.topic, 0);
      TopicPartition p1 = new TopicPartition(kafka.topic, 1);
      try (Running running =
          new Running(
              KafkaInboxLoop.builder(kafka.consumerProps(), consumer.asMode())
                  .topics(kafka.topic)
                  .listener(listener)
                  .maxPause(Duration.ofMillis(100))
                  .build())) {
        // Partition 1 finishes (after its FAILED pause) while partition 0 stays held, and
        // partition 0 has been read again at least twice without passing "held".
        Await.until(
            "partition 1 committed to its end and partition 0 re-read twice",
            () ->
                Long.valueOf(3).equals(kafka.committed().get(1))
                    && pauses.getOrDefault(p0, List.of()).size() >= 2);
        assertThat(pauses.get(p1)).contains(flakyOffset);
        assertThat(pauses.get(p0)).containsOnly(heldOffset);
        assertThat(kafka.committed().get(0)).isEqualTo(heldOffset);
        assertThat(handled).doesNotContainKeys("held", "after-held");
        assertThat(heldOutcomes).allMatch(o -> o.status() == Outcome.Status.IN_FLIGHT);

        // The other instance finishes: the next read is DUPLICATE and the partition moves on.
        store.complete(hold.claim(), null);
        Await.until("partition 0 committed to its end", kafka::allCommitted);
      }
      assertThat(handled).doesNotContainKey("held");
      assertThat(heldOutcomes.get(heldOutcomes.size() - 1).status())
          .isEqualTo(Outcome.Status.DUPLICATE);
      assertThat(flakyRuns.get()).isEqualTo(2);
      assertThat(Effects.counts(ds, name))
          .containsOnly(
              Map.entry("before", 1),
              Map.entry("after-held", 1),
              Map.entry("p1-a", 1),
              Map.entry("flaky", 1),
              Map.entry("p1-b", 1));
    }
  }

  @Test
  void aDeadLetterThatCannotBeWrittenKeepsTheOffsetUntilItIs() throws Exception {
    String name = newName("dlt-down");
    try (KafkaFixture kafka = new KafkaFixture(name, 1)) {
      List<Exception> failures = new CopyOnWriteArrayList<>();
      KafkaLoopListener listener =
          new KafkaLoopListener() {
            @Override
            public void deadLetterFailed(ConsumerRecord<byte[], byte[]> r, Exception e) {
              failures.add(e);
            }
          };
      Map<String, Object> producer =
          Map.of(
              ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000,
              ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000,
              ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2000,
              ProducerConfig.LINGER_MS_CONFIG, 0);
      try (Running running =
          new Running(
              KafkaInboxLoop.builder(kafka.consumerProps(), mode(Mode.ONE_COMMIT, name))
                  .topics(kafka.topic)
                  .producerProperties(producer)
                  .listener(listener)
                  .errorBackoff(Duration.ofMillis(100))
                  .build())) {
        kafka.send(0, "first", "x");
        Await.until(
            "first record committed", () -> Long.valueOf(1).equals(kafka.committed().get(0)));
        String dlt = kafka.topic + ".DLT";
        try (Admin admin = kafka.broker.admin()) {
          admin.deleteTopics(List.of(dlt)).all().get(60, TimeUnit.SECONDS);
        }
        long noId = kafka.send(0, null, "no id");
        kafka.send(0, "after", "x");
        Await.until("two failed dead-letter attempts", () -> failures.size() >= 2);
        assertThat(kafka.committed().get(0)).isEqualTo(noId);
        assertThat(Effects.counts(ds, name)).doesNotContainKey("after");

        recreate(kafka, dlt);
        Await.until("every record committed", kafka::allCommitted);
        List<ConsumerRecord<byte[], byte[]>> dead = kafka.deadLetters();
        assertThat(dead).isNotEmpty();
        assertThat(dead)
            .allMatch(
                r ->
                    String.valueOf(noId)
                        .equals(KafkaFixture.header(r, DeadLetterPublisher.ORIGINAL_OFFSET)));
      }
      assertThat(Effects.counts(ds, name))
          .containsOnly(Map.entry("first", 1), Map.entry("after", 1));
    }
  }

  private static void recreate(KafkaFixture kafka, String topic) {
    // Deletion completes in the background: creation is refused until it has.
    Await.until(
        "dead-letter topic re-created",
        () -> {
          try (Admin admin = kafka.broker.admin()) {
            admin
                .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                .all()
                .get(60, TimeUnit.SECONDS);
            return true;
          } catch (Exception e) {
            return false;
          }
        });
  }

  @Test
  void refusesAMissingGroupIdAndAutoCommit() {
    Map<String, Object> base = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
    ConsumeMode mode = mode(Mode.ONE_COMMIT, newName("config"));
    assertThatThrownBy(() -> KafkaInboxLoop.builder(base, mode).topics("t").build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("group.id is required");
    Map<String, Object> auto = new java.util.HashMap<>(base);
    auto.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
    auto.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
    assertThatThrownBy(() -> KafkaInboxLoop.builder(auto, mode).topics("t").build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("enable.auto.commit must be false, was true");
    auto.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    assertThatThrownBy(() -> KafkaInboxLoop.builder(auto, mode).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("at least one topic");
    assertThatThrownBy(() -> KafkaInboxLoop.builder(auto, mode).maxRecordsPerCall(0))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessage("maxRecordsPerCall must be >= 1, was 0");
    assertThatThrownBy(
            () ->
                KafkaInboxLoop.builder(auto, mode)
                    .topics("t")
                    .producerProperties(Map.of(ProducerConfig.ACKS_CONFIG, "1"))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("acks must stay 'all'");
  }

  @Test
  void aDeadLetterTopicThatCannotBeWrittenStopsTheStart() {
    String name = newName("no-dlt");
    String topic = name;
    KafkaBroker broker = KafkaBroker.get();
    broker.createTopics(1, topic); // and no dead-letter topic; the broker does not auto-create
    Map<String, Object> props =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrap(),
            ConsumerConfig.GROUP_ID_CONFIG,
            "g-" + name);
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(props, mode(Mode.ONE_COMMIT, name))
            .topics(topic)
            .producerProperties(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000))
            .build();
    assertThatThrownBy(loop::run)
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("dead-letter topic '" + topic + ".DLT'")
        .hasMessageContaining("cannot be written");
  }
}
