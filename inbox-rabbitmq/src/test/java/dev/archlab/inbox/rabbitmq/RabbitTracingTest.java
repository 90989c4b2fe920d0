package dev.archlab.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.GetResponse;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.micrometer.InboxObservations;
import dev.archlab.inbox.testkit.Await;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One trace from a RabbitMQ message's {@code traceparent} header through both attempts of its
 * handler (the retry copy carries the trace on) to the dead-letter copy, on a real broker, with
 * OpenTelemetry behind Micrometer Tracing's bridge and {@code InboxObservations} as the observer;
 * and the messages of one one-commit group (one PostgreSQL transaction) each traced on their own,
 * every handler call inside its message's span.
 */
class RabbitTracingTest {

  private static final String PRODUCER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PRODUCER_SPAN = "00f067aa0ba902b7";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final ObservationRegistry registry = ObservationRegistry.create();
  private final OtelTracer tracer;

  RabbitTracingTest() {
    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(provider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("inbox-tests");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    tracer =
        new OtelTracer(
            otel, current, event -> {}, new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator = new OtelPropagator(sdk.getPropagators(), otel);
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
  }

  @AfterEach
  void closeTracer() {
    provider.close();
  }

  /** The trace and span id current on this thread, as "trace/span"; "none" when no span is. */
  private String currentSpan() {
    Span span = tracer.currentSpan();
    return span == null ? "none" : span.context().traceId() + "/" + span.context().spanId();
  }

  @Test
  void aMessagesTraceRunsFromItsHeaderThroughItsRetryToTheDeadLetter() throws Exception {

    List<String> seenByHandler = new CopyOnWriteArrayList<>();
    IdempotentConsumer consumer =
        IdempotentConsumer.builder("payments", new MemoryInboxStore())
            .config(
                InboxConfig.custom()
                    .retryPolicy(
                        RetryPolicy.custom()
                            .maxAttempts(2)
                            .initialDelay(Duration.ofMillis(10))
                            .jitter(0)
                            .build())
                    .build())
            .handler(
                (message, attempt) -> {
                  seenByHandler.add(currentSpan());
                  throw new IllegalStateException("poison");
                })
            .build();
    CountDownLatch deadLettered = new CountDownLatch(1);
    RabbitInboxListener listener =
        new RabbitInboxListener() {
          @Override
          public void deadLettered(Delivery delivery, String reason) {
            deadLettered.countDown();
          }
        };
    InboxObservations observations = InboxObservations.builder(registry).build();
    try (RabbitFixture rabbit = new RabbitFixture("traced");
        RabbitInboxConsumer inbox =
            RabbitInboxConsumer.builder(rabbit.broker.factory(), rabbit.topology, consumer.asMode())
                .listener(listener)
                .observer(observations.deliveryObserver())
                .minRetryDelay(Duration.ofMillis(10))
                .build()) {
      inbox.start();
      publishTraced(rabbit, "p-1", "00-" + PRODUCER_TRACE + "-" + PRODUCER_SPAN + "-01");
      assertThat(deadLettered.await(Await.LIMIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      List<GetResponse> dead = rabbit.deadLetters();
      assertThat(dead).hasSize(1);

      String queue = rabbit.topology.workQueue();
      List<SpanData> processed =
          exporter.getFinishedSpanItems().stream()
              .filter(s -> s.getName().equals(queue + " process"))
              .toList();
      assertThat(processed).hasSize(2);
      SpanData first = processed.get(0);
      SpanData second = processed.get(1);
      SpanData retry = only(exporter, rabbit.topology.retryQueue() + " send");
      SpanData deadLetter = only(exporter, rabbit.topology.deadLetterExchange() + " send");

      // producer → first attempt → retry copy → second attempt → dead letter: one trace.
      for (SpanData s : List.of(first, retry, second, deadLetter)) {
        assertThat(s.getTraceId()).isEqualTo(PRODUCER_TRACE);
      }
      assertThat(first.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
      assertThat(retry.getParentSpanId()).isEqualTo(first.getSpanId());
      assertThat(second.getParentSpanId()).isEqualTo(retry.getSpanId());
      assertThat(deadLetter.getParentSpanId()).isEqualTo(second.getSpanId());
      assertThat(first.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(deadLetter.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(seenByHandler)
          .containsExactly(
              PRODUCER_TRACE + "/" + first.getSpanId(), PRODUCER_TRACE + "/" + second.getSpanId());

      assertThat(attributes(first))
          .containsEntry("messaging.system", "rabbitmq")
          .containsEntry("messaging.operation.type", "process")
          .containsEntry("messaging.destination.name", queue)
          .containsEntry("messaging.message.id", "p-1")
          .containsEntry("inbox.consumer", "payments")
          .containsEntry("inbox.outcome", "failed")
          .containsEntry("inbox.attempt", "1");
      assertThat(attributes(second))
          .containsEntry("inbox.outcome", "dead")
          .containsEntry("inbox.attempt", "2");
      assertThat(attributes(retry)).containsEntry("inbox.publish.purpose", "retry");
      assertThat(attributes(deadLetter)).containsEntry("inbox.publish.purpose", "dead_letter");
      assertThat(RabbitFixture.header(dead.get(0), "traceparent"))
          .isEqualTo("00-" + PRODUCER_TRACE + "-" + deadLetter.getSpanId() + "-01");
    }
  }

  @Test
  void eachMessageOfAOneCommitGroupRunsItsHandlerInItsOwnTrace() throws Exception {
    DataSource ds = TestPostgres.dataSource();
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    String name = "traced-group-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> seenByHandler = new ConcurrentHashMap<>();
    Map<String, Long> txOf = new ConcurrentHashMap<>();
    OneCommitConsumer consumer =
        OneCommitConsumer.builder(name, store)
            .handler(
                (message, attempt, c) -> {
                  seenByHandler.put(message.id(), currentSpan());
                  try (Statement st = c.createStatement();
                      ResultSet rs = st.executeQuery("SELECT txid_current()")) {
                    rs.next();
                    txOf.put(message.id(), rs.getLong(1));
                  }
                })
            .build();
    int count = 4;
    Map<String, String> traces = new HashMap<>();
    try (RabbitFixture rabbit = new RabbitFixture(name)) {
      for (int i = 0; i < count; i++) {
        String trace = UUID.randomUUID().toString().replace("-", "");
        traces.put("g-" + i, trace);
        publishTraced(rabbit, "g-" + i, "00-" + trace + "-" + PRODUCER_SPAN + "-01");
      }
      RabbitInboxConsumerTest.Ends ends = new RabbitInboxConsumerTest.Ends();
      InboxObservations observations = InboxObservations.builder(registry).build();
      try (RabbitInboxConsumer inbox =
          RabbitInboxConsumer.builder(rabbit.broker.factory(), rabbit.topology, consumer.asMode())
              .prefetch(count)
              .maxDeliveriesPerCall(count)
              // All are queued before the start: the linger only bounds the wait for them.
              .linger(Duration.ofSeconds(10))
              .listener(ends)
              .observer(observations.deliveryObserver())
              .build()) {
        inbox.start();
        Await.until("every delivery ended", () -> ends.ended.get() >= count);
      }
      // One transaction for all of them: the group was consumed by one call.
      assertThat(new HashSet<>(txOf.values())).hasSize(1);
      String queue = rabbit.topology.workQueue();
      for (Map.Entry<String, String> e : traces.entrySet()) {
        SpanData process =
            exporter.getFinishedSpanItems().stream()
                .filter(
                    s ->
                        s.getName().equals(queue + " process")
                            && e.getKey().equals(attributes(s).get("messaging.message.id")))
                .findFirst()
                .orElseThrow();
        assertThat(process.getTraceId()).isEqualTo(e.getValue());
        assertThat(process.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
        assertThat(attributes(process)).containsEntry("inbox.outcome", "applied");
        assertThat(seenByHandler)
            .containsEntry(e.getKey(), e.getValue() + "/" + process.getSpanId());
      }
    }
  }

  private static SpanData only(InMemorySpanExporter exporter, String name) {
    List<SpanData> named =
        exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named " + name).hasSize(1);
    return named.get(0);
  }

  private static void publishTraced(RabbitFixture rabbit, String id, String traceparent)
      throws Exception {
    try (Connection connection = rabbit.broker.connect();
        Channel c = connection.createChannel()) {
      c.confirmSelect();
      AMQP.BasicProperties props =
          new AMQP.BasicProperties.Builder()
              .messageId(id)
              .deliveryMode(2)
              .headers(Map.of("traceparent", traceparent))
              .build();
      c.basicPublish(
          "", rabbit.topology.workQueue(), props, "payload".getBytes(StandardCharsets.UTF_8));
      c.waitForConfirmsOrDie(60_000);
    }
  }

  private static Map<String, String> attributes(SpanData span) {
    Map<String, String> out = new HashMap<>();
    span.getAttributes()
        .forEach((AttributeKey<?> k, Object v) -> out.put(k.getKey(), v.toString()));
    return out;
  }
}
