package dev.archlab.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.kafka.KafkaBroker;
import dev.archlab.inbox.kafka.KafkaIds;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import dev.archlab.inbox.kafka.KafkaLoopListener;
import dev.archlab.inbox.memory.MemoryInboxStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * One trace from a Kafka record's {@code traceparent} header through the handler to the dead-letter
 * record, on a real broker, with OpenTelemetry behind Micrometer Tracing's bridge and {@link
 * InboxObservations} as the loop's observer.
 */
class KafkaTracingTest {

  private static final String PRODUCER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PRODUCER_SPAN = "00f067aa0ba902b7";

  private final KafkaBroker broker = KafkaBroker.get();
  private final String topic = "traced-" + UUID.randomUUID().toString().substring(0, 8);
  private final String group = "group-" + topic;

  @Test
  void aDeadRecordsTraceRunsFromItsHeaderThroughTheHandlerToTheDeadLetter() throws Exception {
    broker.createTopics(1, topic, topic + ".DLT");
    send("m-1", "00-" + PRODUCER_TRACE + "-" + PRODUCER_SPAN + "-01");
    Map<String, String> seenByHandler = new ConcurrentHashMap<>();
    try (OtelTracing tracing = new OtelTracing()) {
      IdempotentConsumer consumer =
          IdempotentConsumer.builder("orders", new MemoryInboxStore())
              .config(
                  InboxConfig.custom()
                      .retryPolicy(RetryPolicy.custom().maxAttempts(1).build())
                      .build())
              .handler(
                  (message, attempt) -> {
                    seenByHandler.put(message.id(), tracing.current());
                    throw new IllegalStateException("poison");
                  })
              .build();
      CountDownLatch deadLettered = new CountDownLatch(1);
      runUntil(consumer, tracing, deadLettered, listenerCounting(deadLettered));

      SpanData process = tracing.span(topic + " process");
      assertThat(process.getTraceId()).isEqualTo(PRODUCER_TRACE);
      assertThat(process.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
      assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(process.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(attributes(process))
          .containsEntry("messaging.system", "kafka")
          .containsEntry("messaging.operation.type", "process")
          .containsEntry("messaging.operation.name", "process")
          .containsEntry("messaging.destination.name", topic)
          .containsEntry("messaging.message.id", "m-1")
          .containsEntry("messaging.consumer.group.name", group)
          .containsEntry("messaging.destination.partition.id", "0")
          .containsEntry("messaging.kafka.offset", "0")
          .containsEntry("inbox.consumer", "orders")
          .containsEntry("inbox.outcome", "dead")
          .containsEntry("inbox.attempt", "1");
      // The handler ran inside the process span.
      assertThat(seenByHandler).containsEntry("m-1", PRODUCER_TRACE + "/" + process.getSpanId());

      SpanData publish = tracing.span(topic + ".DLT send");
      assertThat(publish.getTraceId()).isEqualTo(PRODUCER_TRACE);
      assertThat(publish.getParentSpanId()).isEqualTo(process.getSpanId());
      assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(attributes(publish))
          .containsEntry("messaging.operation.type", "send")
          .containsEntry("messaging.destination.name", topic + ".DLT")
          .containsEntry("inbox.publish.purpose", "dead_letter")
          .containsEntry("messaging.message.id", "m-1");

      List<ConsumerRecord<byte[], byte[]>> dlt = deadLetters();
      assertThat(dlt).hasSize(1);
      assertThat(headers(dlt.get(0), "traceparent"))
          .containsExactly("00-" + PRODUCER_TRACE + "-" + publish.getSpanId() + "-01");

      // The meters carry the low-cardinality tags only: no message id, no attempt.
      Timer timer =
          tracing
              .meters
              .get(InboxObservations.PROCESS)
              .tag("inbox.consumer", "orders")
              .tag("inbox.outcome", "dead")
              .tag("messaging.destination.name", topic)
              .timer();
      assertThat(timer.count()).isEqualTo(1);
      for (Meter meter : tracing.meters.getMeters()) {
        assertThat(meter.getId().getTags())
            .noneMatch(
                t ->
                    t.getKey().equals("messaging.message.id")
                        || t.getKey().equals("inbox.attempt"));
      }
    }
  }

  @Test
  void eachRecordOfOneBatchRunsInItsOwnTraceAndARecordWithoutIdIsTracedToTheDeadLetter()
      throws Exception {
    broker.createTopics(1, topic, topic + ".DLT");
    Map<String, String> traces = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      String trace = UUID.randomUUID().toString().replace("-", "");
      traces.put("b-" + i, trace);
      send("b-" + i, "00-" + trace + "-" + PRODUCER_SPAN + "-01");
    }
    String noIdTrace = UUID.randomUUID().toString().replace("-", "");
    send(null, "00-" + noIdTrace + "-" + PRODUCER_SPAN + "-01");
    send("untraced", null);
    Map<String, String> seenByHandler = new ConcurrentHashMap<>();
    try (OtelTracing tracing = new OtelTracing()) {
      IdempotentConsumer consumer =
          IdempotentConsumer.builder("orders", new MemoryInboxStore())
              .handler((message, attempt) -> seenByHandler.put(message.id(), tracing.current()))
              .build();
      CountDownLatch done = new CountDownLatch(5); // four outcomes and one dead letter
      KafkaLoopListener listener =
          new KafkaLoopListener() {
            @Override
            public void outcome(
                ConsumerRecord<byte[], byte[]> record, dev.archlab.inbox.Outcome outcome) {
              done.countDown();
            }

            @Override
            public void deadLettered(ConsumerRecord<byte[], byte[]> record, String reason) {
              done.countDown();
            }
          };
      runUntil(consumer, tracing, done, listener);

      List<SpanData> processed =
          tracing.spans.getFinishedSpanItems().stream()
              .filter(s -> s.getName().equals(topic + " process"))
              .toList();
      assertThat(processed).hasSize(5);
      for (Map.Entry<String, String> e : traces.entrySet()) {
        SpanData span = processOf(processed, e.getKey());
        assertThat(span.getTraceId()).isEqualTo(e.getValue());
        assertThat(span.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
        assertThat(attributes(span)).containsEntry("inbox.outcome", "applied");
        assertThat(seenByHandler).containsEntry(e.getKey(), e.getValue() + "/" + span.getSpanId());
      }
      // No traceparent: a trace of its own, which the handler still sees.
      SpanData untraced = processOf(processed, "untraced");
      assertThat(untraced.getParentSpanContext().isValid()).isFalse();
      assertThat(seenByHandler)
          .containsEntry("untraced", untraced.getTraceId() + "/" + untraced.getSpanId());

      SpanData rejected =
          processed.stream()
              .filter(s -> !attributes(s).containsKey("messaging.message.id"))
              .findFirst()
              .orElseThrow();
      assertThat(rejected.getTraceId()).isEqualTo(noIdTrace);
      assertThat(attributes(rejected)).containsEntry("inbox.outcome", "rejected");
      SpanData publish = tracing.span(topic + ".DLT send");
      assertThat(publish.getParentSpanId()).isEqualTo(rejected.getSpanId());
      List<ConsumerRecord<byte[], byte[]>> dlt = deadLetters();
      assertThat(dlt).hasSize(1);
      assertThat(headers(dlt.get(0), "traceparent"))
          .containsExactly("00-" + noIdTrace + "-" + publish.getSpanId() + "-01");
    }
  }

  private static SpanData processOf(List<SpanData> spans, String messageId) {
    return spans.stream()
        .filter(s -> messageId.equals(attributes(s).get("messaging.message.id")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no process span of " + messageId + ": " + spans));
  }

  private static KafkaLoopListener listenerCounting(CountDownLatch deadLettered) {
    return new KafkaLoopListener() {
      @Override
      public void deadLettered(ConsumerRecord<byte[], byte[]> record, String reason) {
        deadLettered.countDown();
      }
    };
  }

  /** Runs the loop until {@code until} opens, then closes it: every span has ended by then. */
  private void runUntil(
      IdempotentConsumer consumer,
      OtelTracing tracing,
      CountDownLatch until,
      KafkaLoopListener listener)
      throws InterruptedException {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    InboxObservations observations = InboxObservations.builder(tracing.registry).build();
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(props, consumer.asMode())
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

  private void send(String id, String traceparent) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(topic, 0, null, null, utf8("payload of " + id));
      if (id != null) {
        r.headers().add(KafkaIds.DEFAULT_HEADER, utf8(id));
      }
      if (traceparent != null) {
        r.headers().add("traceparent", utf8(traceparent));
      }
      producer.send(r).get(60, TimeUnit.SECONDS);
    }
  }

  /** Every record on the dead-letter topic, read from its start to its end. */
  private List<ConsumerRecord<byte[], byte[]>> deadLetters() {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic + ".DLT", 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      while (c.position(tp) < end) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  private static List<String> headers(ConsumerRecord<byte[], byte[]> record, String name) {
    List<String> values = new ArrayList<>();
    for (Header h : record.headers().headers(name)) {
      values.add(new String(h.value(), StandardCharsets.UTF_8));
    }
    return values;
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
}
