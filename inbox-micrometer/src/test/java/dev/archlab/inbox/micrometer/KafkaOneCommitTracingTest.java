package dev.archlab.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.kafka.KafkaBroker;
import dev.archlab.inbox.kafka.KafkaIds;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import dev.archlab.inbox.kafka.KafkaLoopListener;
import io.micrometer.observation.Observation;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Kafka's default mode for {@link OneCommitConsumer}: a partition's records of one poll consumed in
 * one transaction. Each record's handler still runs inside that record's {@value
 * InboxObservations#PROCESS} span, continuing its own producer's trace, so the spans the handler
 * opens are that record's children: on a real broker and an H2 database.
 */
class KafkaOneCommitTracingTest {

  private static final String PRODUCER_SPAN = "00f067aa0ba902b7";
  private static final int RECORDS = 5;

  private final KafkaBroker broker = KafkaBroker.get();
  private final String topic = "one-commit-" + UUID.randomUUID().toString().substring(0, 8);

  @Test
  void eachRecordOfAOneCommitBatchRunsItsHandlerInItsOwnTrace() throws Exception {
    broker.createTopics(1, topic, topic + ".DLT");
    Map<String, String> traces = new HashMap<>();
    for (int i = 0; i < RECORDS; i++) {
      traces.put("r-" + i, UUID.randomUUID().toString().replace("-", ""));
    }
    // All records are in the log before the loop's first fetch, which so returns several at once.
    sendAll(traces);
    Map<String, String> seenByHandler = new ConcurrentHashMap<>();
    AtomicInteger largestCall = new AtomicInteger();
    try (OtelTracing tracing = new OtelTracing()) {
      OneCommitConsumer consumer =
          OneCommitConsumer.builder("orders", store())
              .handler(
                  (message, attempt, connection) ->
                      Observation.createNotStarted("orders.write", tracing.registry)
                          .highCardinalityKeyValue("order", message.id())
                          .observe(() -> seenByHandler.put(message.id(), tracing.current())))
              .build();
      CountDownLatch done = new CountDownLatch(RECORDS);
      KafkaLoopListener listener =
          new KafkaLoopListener() {
            @Override
            public void outcome(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
              done.countDown();
            }
          };
      runUntil(new Measured(consumer.asMode(), largestCall), tracing, done, listener);

      assertThat(largestCall.get()).as("records consumed by one call").isGreaterThan(1);
      List<SpanData> finished = tracing.spans.getFinishedSpanItems();
      HashSet<String> traceIds = new HashSet<>();
      for (Map.Entry<String, String> e : traces.entrySet()) {
        SpanData process = spanOf(finished, topic + " process", "messaging.message.id", e.getKey());
        assertThat(process.getTraceId()).isEqualTo(e.getValue());
        assertThat(process.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
        assertThat(attributes(process)).containsEntry("inbox.outcome", "applied");
        SpanData write = spanOf(finished, "orders.write", "order", e.getKey());
        // The handler's own span is the child of its record's process span, in its trace.
        assertThat(write.getTraceId()).isEqualTo(e.getValue());
        assertThat(write.getParentSpanId()).isEqualTo(process.getSpanId());
        assertThat(seenByHandler).containsEntry(e.getKey(), e.getValue() + "/" + write.getSpanId());
        traceIds.add(write.getTraceId());
      }
      assertThat(traceIds).hasSize(RECORDS);
    }
  }

  private JdbcInboxStore store() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:" + topic + ";DB_CLOSE_DELAY=-1");
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    return store;
  }

  private static SpanData spanOf(List<SpanData> spans, String name, String key, String value) {
    return spans.stream()
        .filter(s -> s.getName().equals(name) && value.equals(attributes(s).get(key)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " of " + value + ": " + spans));
  }

  /** Runs the loop until {@code until} opens, then closes it: every span has ended by then. */
  private void runUntil(
      ConsumeMode mode, OtelTracing tracing, CountDownLatch until, KafkaLoopListener listener)
      throws InterruptedException {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "group-" + topic);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    InboxObservations observations = InboxObservations.builder(tracing.registry).build();
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(props, mode)
            .topics(topic)
            .listener(listener)
            .observer(observations.deliveryObserver())
            .errorBackoff(Duration.ofMillis(100))
            .build();
    Thread runner = new Thread(loop::run, "loop-" + topic);
    runner.start();
    try {
      assertThat(until.await(120, TimeUnit.SECONDS)).as("the loop settled the records").isTrue();
    } finally {
      loop.close();
      runner.join(TimeUnit.SECONDS.toMillis(120));
    }
    assertThat(runner.isAlive()).isFalse();
  }

  /** Sends the records with one producer and waits until the broker has every one. */
  private void sendAll(Map<String, String> traces) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      List<Future<?>> sent = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        String id = "r-" + i;
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, null, null, utf8(id));
        r.headers().add(KafkaIds.DEFAULT_HEADER, utf8(id));
        r.headers().add("traceparent", utf8("00-" + traces.get(id) + "-" + PRODUCER_SPAN + "-01"));
        sent.add(producer.send(r));
      }
      for (Future<?> f : sent) {
        f.get(60, TimeUnit.SECONDS);
      }
    }
  }

  private static Map<String, String> attributes(SpanData span) {
    Map<String, String> out = new HashMap<>();
    span.getAttributes()
        .forEach((AttributeKey<?> k, Object v) -> out.put(k.getKey(), v.toString()));
    return out;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The mode as it is, recording the largest number of records one call was handed. */
  private record Measured(ConsumeMode mode, AtomicInteger largest) implements ConsumeMode {
    @Override
    public String consumerName() {
      return mode.consumerName();
    }

    @Override
    public int maxBatch() {
      return mode.maxBatch();
    }

    @Override
    public List<Outcome> consume(List<Message> messages) {
      largest.accumulateAndGet(messages.size(), Math::max);
      return mode.consume(messages);
    }

    @Override
    public List<Outcome> consume(List<Message> messages, ConsumeInterceptor interceptor) {
      largest.accumulateAndGet(messages.size(), Math::max);
      return mode.consume(messages, interceptor);
    }

    @Override
    public ConsumeMode inOrderBatchesOf(int maxMessages) {
      return new Measured(mode.inOrderBatchesOf(maxMessages), largest);
    }

    @Override
    public ConsumeMode batchesOf(int maxMessages) {
      return new Measured(mode.batchesOf(maxMessages), largest);
    }
  }
}
