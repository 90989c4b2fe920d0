package dev.archlab.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.GetResponse;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The consumer on a real RabbitMQ server with the inbox and the business table on PostgreSQL. */
class RabbitInboxConsumerTest {

  private static final RetryPolicy TWO_QUICK_ATTEMPTS =
      RetryPolicy.custom().maxAttempts(2).initialDelay(Duration.ofMillis(10)).jitter(0).build();

  static DataSource ds;
  static JdbcInboxStore store;

  @BeforeAll
  static void servers() {
    ds = TestPostgres.dataSource();
    store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    Effects.createTable(ds);
    RabbitBroker.get();
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
  static ConsumeMode mode(Mode mode, String name, InboxConfig config) {
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
            .asMode(50);
    }
  }

  static void failIfPoison(Message m) {
    if (m.id().startsWith("poison")) {
      throw new IllegalStateException("poison message " + m.id());
    }
  }

  /**
   * Counts deliveries that reached their end: acked after APPLIED or DUPLICATE, or confirmed on the
   * dead-letter exchange. Without faults every published message ends exactly once.
   */
  static final class Ends implements RabbitInboxListener {
    final AtomicInteger ended = new AtomicInteger();
    final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

    @Override
    public void outcome(Delivery d, Outcome o) {
      outcomes.add(o);
      if (o.status() == Outcome.Status.APPLIED || o.status() == Outcome.Status.DUPLICATE) {
        ended.incrementAndGet();
      }
    }

    @Override
    public void deadLettered(Delivery d, String reason) {
      ended.incrementAndGet();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void duplicatesApplyOncePoisonAndDeliveriesWithoutIdReachTheDeadLetterQueueOnce(Mode m) {
    String name = newName("dedup-" + m.name().toLowerCase());
    InboxConfig config = InboxConfig.custom().retryPolicy(TWO_QUICK_ATTEMPTS).build();
    try (RabbitFixture rabbit = new RabbitFixture(name)) {
      int n = 300;
      Set<String> poison = Set.of("poison-1", "poison-2", "poison-3");
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ids.add("id-" + i);
      }
      ids.addAll(poison);
      for (int i = 0; i < n; i += 10) {
        ids.add("id-" + i); // 10 % published again as separate messages
      }
      for (String id : ids) {
        rabbit.publishNoWait(id, "payload-" + id);
      }
      rabbit.publishNoWait(null, "no id A");
      rabbit.publishNoWait(null, "no id B");
      rabbit.confirm();
      int published = ids.size() + 2;

      Ends ends = new Ends();
      try (RabbitInboxConsumer consumer =
          RabbitInboxConsumer.builder(
                  rabbit.broker.factory(), rabbit.topology, mode(m, name, config))
              .consumers(2)
              .minRetryDelay(Duration.ofMillis(10))
              // A second copy of an id met on the other channel while the first holds its lease
              // answers IN_FLIGHT: coming back early is harmless and keeps the test short.
              .maxRetryDelay(Duration.ofMillis(500))
              .listener(ends)
              .build()) {
        consumer.start();
        Await.until("every delivery ended", () -> ends.ended.get() >= published);
      }
      assertThat(ends.ended.get()).isEqualTo(published);
      assertThat(rabbit.ready(rabbit.topology.workQueue())).isZero();
      assertThat(rabbit.ready(rabbit.topology.retryQueue())).isZero();

      Map<String, Integer> effects = Effects.counts(ds, name);
      assertThat(effects).hasSize(n);
      assertThat(effects.values()).allMatch(c -> c == 1);
      assertThat(effects.keySet()).doesNotContainAnyElementsOf(poison);

      List<String> poisonInDlq = new ArrayList<>();
      List<String> noId = new ArrayList<>();
      for (GetResponse r : rabbit.deadLetters()) {
        assertThat(RabbitFixture.header(r, Settlement.ORIGINAL_QUEUE))
            .isEqualTo(rabbit.topology.workQueue());
        assertThat(RabbitFixture.header(r, Settlement.CONSUMER)).isEqualTo(name);
        String id = r.getProps().getMessageId();
        if (id == null) {
          assertThat(RabbitFixture.header(r, Settlement.LAST_ERROR)).isEqualTo("no message id");
          noId.add(new String(r.getBody(), StandardCharsets.UTF_8));
        } else {
          poisonInDlq.add(id);
          assertThat(RabbitFixture.header(r, Settlement.ATTEMPTS)).isEqualTo("2");
          assertThat(RabbitFixture.header(r, Settlement.LAST_ERROR)).contains("poison message");
          assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo("payload-" + id);
        }
      }
      assertThat(poisonInDlq).containsExactlyInAnyOrderElementsOf(poison); // each exactly once
      assertThat(noId).containsExactlyInAnyOrder("no id A", "no id B");
    }
  }

  @Test
  void failedDeliveriesComeBackThroughTheRetryQueueNoSoonerThanTheirBackoff() throws Exception {
    String name = newName("backoff");
    Duration backoff = Duration.ofMillis(1500);
    InboxConfig config =
        InboxConfig.custom()
            .retryPolicy(
                RetryPolicy.custom()
                    .maxAttempts(5)
                    .initialDelay(backoff)
                    .multiplier(1)
                    .jitter(0)
                    .build())
            .build();
    List<Long> failedAt = new CopyOnWriteArrayList<>();
    List<Long> arrivedAt = new CopyOnWriteArrayList<>();
    List<Delivery> arrivals = new CopyOnWriteArrayList<>();
    List<Long> ttls = new CopyOnWriteArrayList<>();
    List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    CountDownLatch applied = new CountDownLatch(1);
    IdempotentConsumer flaky =
        IdempotentConsumer.builder(name, store)
            .config(config)
            .handler(
                (m, attempt) -> {
                  if (attempt.number() < 3) {
                    failedAt.add(System.nanoTime()); // before the retry copy is published
                    throw new IllegalStateException("flaky attempt " + attempt.number());
                  }
                  try (Connection c = ds.getConnection()) {
                    Effects.insert(c, name, m.id());
                  }
                })
            .build();
    RabbitInboxListener listener =
        new RabbitInboxListener() {
          @Override
          public void received(Delivery d) {
            arrivedAt.add(System.nanoTime());
            arrivals.add(d);
          }

          @Override
          public void outcome(Delivery d, Outcome o) {
            outcomes.add(o);
            if (o.status() == Outcome.Status.APPLIED) {
              applied.countDown();
            }
          }

          @Override
          public void retryScheduled(Delivery d, Duration delay) {
            ttls.add(delay.toMillis());
          }
        };
    try (RabbitFixture rabbit = new RabbitFixture(name);
        RabbitInboxConsumer consumer =
            RabbitInboxConsumer.builder(rabbit.broker.factory(), rabbit.topology, flaky.asMode())
                .listener(listener)
                .build()) {
      consumer.start();
      rabbit.publish("flaky-1", "payload");
      assertThat(applied.await(Await.LIMIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Outcome.Status.FAILED, Outcome.Status.FAILED, Outcome.Status.APPLIED);
    assertThat(arrivedAt).hasSize(3);
    assertThat(failedAt).hasSize(2);
    for (int k = 0; k < 2; k++) {
      Outcome failed = outcomes.get(k);
      // The TTL is the outcome's retryAfter rounded up to whole milliseconds.
      long expectedTtl =
          Settlement.ttlMillis(failed.retryAfter(), Duration.ofMillis(100), Duration.ofSeconds(30));
      assertThat(failed.retryAfter()).isPositive().isLessThanOrEqualTo(backoff);
      assertThat(ttls.get(k)).isEqualTo(expectedTtl);
      // The broker held the copy at least its TTL: it was published after the failure.
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(arrivedAt.get(k + 1) - failedAt.get(k));
      assertThat(waitedMs).isGreaterThanOrEqualTo(ttls.get(k));
      // And it came back through the retry queue (the broker's own dead-letter record).
      Delivery back = arrivals.get(k + 1);
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> deaths =
          (List<Map<String, Object>>) back.getProperties().getHeaders().get("x-death");
      assertThat(deaths).isNotEmpty();
      assertThat(deaths.get(0).get("queue").toString()).endsWith(".retry");
      assertThat(deaths.get(0).get("reason").toString()).isEqualTo("expired");
      assertThat(((Number) deaths.get(0).get("count")).longValue()).isEqualTo(k + 1);
      assertThat(back.getProperties().getMessageId()).isEqualTo("flaky-1");
    }
    assertThat(Effects.counts(ds, name)).isEqualTo(Map.of("flaky-1", 1));
  }

  @Test
  void afterABrokerRestartTheConsumerResumesByItselfAndAppliesNothingTwice() throws Exception {
    String name = newName("restart");
    String gate = "gate-0";
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    OneCommitConsumer orders =
        OneCommitConsumer.builder(name, store)
            .handler(
                (m, a, c) -> {
                  Effects.insert(c, name, m.id());
                  if (m.id().equals(gate) && a.number() == 1) {
                    entered.countDown();
                    // Held open while the broker restarts: this delivery cannot be acked in time.
                    if (!release.await(Await.LIMIT_SECONDS, TimeUnit.SECONDS)) {
                      throw new IllegalStateException("gate never released");
                    }
                  }
                })
            .build();
    Map<String, List<Outcome>> byId = new java.util.concurrent.ConcurrentHashMap<>();
    List<Boolean> gateRedelivered = new CopyOnWriteArrayList<>();
    RabbitInboxListener listener =
        new RabbitInboxListener() {
          @Override
          public void outcome(Delivery d, Outcome o) {
            byId.computeIfAbsent(o.messageId(), k -> new CopyOnWriteArrayList<>()).add(o);
            if (o.messageId().equals(gate)) {
              gateRedelivered.add(d.getEnvelope().isRedeliver());
            }
          }
        };
    int before = 500;
    int after = 200;
    try (RabbitFixture rabbit = new RabbitFixture(name);
        RabbitInboxConsumer consumer =
            RabbitInboxConsumer.builder(rabbit.broker.factory(), rabbit.topology, orders.asMode())
                .listener(listener)
                .build()) {
      rabbit.publish(gate, "gate");
      for (int i = 1; i < before; i++) {
        rabbit.publishNoWait("id-" + i, "p");
      }
      rabbit.confirm();
      consumer.start();
      assertThat(entered.await(Await.LIMIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      // The gate's delivery and the prefetched ones are unacked now: the restart must return them.
      rabbit.broker.restart();
      release.countDown();
      rabbit.reconnect();
      for (int i = before; i < before + after; i++) {
        rabbit.publishNoWait("id-" + i, "p");
      }
      rabbit.confirm();
      Await.until(
          "every id applied after the restart",
          () -> Effects.counts(ds, name).size() == before + after);
      // The gate's first delivery was lost with the old connection: it comes back redelivered.
      Await.until("the gate delivered again", () -> gateRedelivered.size() >= 2);
    }
    Map<String, Integer> effects = Effects.counts(ds, name);
    assertThat(effects).hasSize(before + after);
    assertThat(effects.values()).allMatch(c -> c == 1);
    assertThat(byId.get(gate).get(0).status()).isEqualTo(Outcome.Status.APPLIED);
    assertThat(gateRedelivered.get(1))
        .as("second delivery of the gate marked redelivered")
        .isTrue();
    assertThat(byId.get(gate).subList(1, byId.get(gate).size()))
        .extracting(Outcome::status)
        .allMatch(s -> s == Outcome.Status.DUPLICATE || s == Outcome.Status.IN_FLIGHT);
    for (List<Outcome> os : byId.values()) {
      assertThat(os).filteredOn(o -> o.status() == Outcome.Status.APPLIED).hasSize(1);
    }
  }
}
