package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.kafka.KafkaBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * A plain {@code @KafkaListener} made idempotent by one property, on a real Kafka broker (the one
 * inbox-kafka's tests start) and a real PostgreSQL server: a record delivered three times writes
 * one row; a poison record ends DEAD and reaches the dead-letter topic once, its row rolled back; a
 * record without a message id goes to the dead-letter topic without running the listener.
 */
class KafkaListenerInboxTest {

  private static final String TOPIC = "boot-orders";
  private static final String DEAD_LETTERS = TOPIC + ".DLT";
  private static final Duration BACKSTOP = Duration.ofMinutes(3);

  private static EmbeddedPostgres server;
  private static KafkaBroker broker;

  @BeforeAll
  static void start() throws IOException {
    server =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("fsync", "off")
            .start();
    new JdbcTemplate(server.getPostgresDatabase())
        .execute("CREATE TABLE kafka_orders (id VARCHAR(100) PRIMARY KEY, body VARCHAR(100))");
    broker = KafkaBroker.get();
    broker.createTopics(1, TOPIC, DEAD_LETTERS);
  }

  @AfterAll
  static void stop() throws IOException {
    server.close();
  }

  /** An ordinary listener: it knows nothing of the inbox. */
  static class OrderListener {
    final JdbcTemplate jdbc;
    final ConcurrentMap<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    OrderListener(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @KafkaListener(id = "order-listener", topics = TOPIC)
    void on(ConsumerRecord<String, String> record) {
      String id = idOf(record);
      calls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      jdbc.update("INSERT INTO kafka_orders (id, body) VALUES (?, ?)", id, record.value());
      if ("poison".equals(record.value())) {
        throw new IllegalStateException("cannot parse order " + id);
      }
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    DataSource dataSource() {
      return server.getPostgresDatabase();
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }

    @Bean
    OrderListener orderListener(JdbcTemplate jdbc) {
      return new OrderListener(jdbc);
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DataSourceTransactionManagerAutoConfiguration.class,
                  KafkaAutoConfiguration.class,
                  InboxAutoConfiguration.class,
                  InboxKafkaAutoConfiguration.class))
          .withUserConfiguration(App.class)
          .withPropertyValues(
              "spring.kafka.consumer.group-id=inbox-boot-test",
              "spring.kafka.consumer.auto-offset-reset=earliest",
              "inbox.table=kafka_inbox",
              "inbox.prune.enabled=false",
              "inbox.consumers.orders.max-attempts=1",
              // The one line that makes the listener idempotent:
              "inbox.kafka.listeners.order-listener.consumer=orders");

  @Test
  void threeDeliveriesOneRowPoisonDeadAndDeadLetteredOnce() throws Exception {
    runner
        .withPropertyValues("spring.kafka.bootstrap-servers=" + broker.bootstrap())
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              try (KafkaProducer<String, String> producer = producer()) {
                for (int i = 0; i < 3; i++) {
                  send(producer, "o-1", "two coffees");
                }
                send(producer, "p-1", "poison");
                send(producer, null, "no id at all");
                send(producer, "last", "one tea");
              }
              JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
              // One partition: records run in order, so once the last one is written every
              // earlier one is finished, dead letters confirmed included.
              await(() -> rows(jdbc, "last") == 1, "the last record was applied");

              OrderListener listener = ctx.getBean(OrderListener.class);
              assertThat(rows(jdbc, "o-1")).isEqualTo(1);
              assertThat(listener.calls.get("o-1")).hasValue(1);

              JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
              assertThat(store.find("orders", "o-1").map(InboxRecord::state))
                  .contains(RecordState.DONE);
              Optional<InboxRecord> poison = store.find("orders", "p-1");
              assertThat(poison.map(InboxRecord::state)).contains(RecordState.DEAD);
              assertThat(poison.get().lastError()).contains("cannot parse order p-1");
              // Its row was written in the transaction the failure rolled back.
              assertThat(rows(jdbc, "p-1")).isZero();
              assertThat(listener.calls.get("p-1")).hasValue(1);

              List<ConsumerRecord<String, String>> dead = readAll(DEAD_LETTERS, 2);
              assertThat(endOffset(DEAD_LETTERS)).isEqualTo(2);
              assertThat(dead)
                  .extracting(KafkaListenerInboxTest::idOf)
                  .containsExactly("p-1", null);
              assertThat(dead)
                  .extracting(ConsumerRecord::value)
                  .containsExactly("poison", "no id at all");
            });
  }

  @Test
  void unknownListenerIdFailsStartupNamingTheProperty() {
    runner
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + broker.bootstrap(),
            "inbox.kafka.listeners.no-such-listener.consumer=orders")
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("inbox.kafka.listeners.no-such-listener"));
  }

  private static String idOf(ConsumerRecord<String, String> record) {
    Header h = record.headers().lastHeader("message-id");
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static long rows(JdbcTemplate jdbc, String id) {
    return jdbc.queryForObject("SELECT count(*) FROM kafka_orders WHERE id = ?", Long.class, id);
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrap(),
            ProducerConfig.ACKS_CONFIG,
            "all"),
        new StringSerializer(),
        new StringSerializer());
  }

  private static void send(KafkaProducer<String, String> producer, String id, String body)
      throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, body);
    if (id != null) {
      record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(record).get(60, TimeUnit.SECONDS);
  }

  private static KafkaConsumer<String, String> reader() {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrap(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            "false"),
        new StringDeserializer(),
        new StringDeserializer());
  }

  private static long endOffset(String topic) {
    try (KafkaConsumer<String, String> reader = reader()) {
      TopicPartition p = new TopicPartition(topic, 0);
      return reader.endOffsets(List.of(p), Duration.ofMinutes(1)).get(p);
    }
  }

  private static List<ConsumerRecord<String, String>> readAll(String topic, int expected) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> reader = reader()) {
      TopicPartition p = new TopicPartition(topic, 0);
      reader.assign(List.of(p));
      reader.seekToBeginning(List.of(p));
      long deadline = System.nanoTime() + BACKSTOP.toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        reader.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  // Polls for a state the code guarantees will come; the backstop only ends a broken run.
  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + BACKSTOP.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + BACKSTOP + ": " + what);
      }
      Thread.sleep(100);
    }
  }
}
