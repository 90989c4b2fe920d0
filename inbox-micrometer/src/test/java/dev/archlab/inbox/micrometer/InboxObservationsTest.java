package dev.archlab.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import io.micrometer.observation.Observation;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link InboxObservations#consume} around a call of one's own: which trace the span joins, what
 * the handler sees, and how a failure ends it.
 */
class InboxObservationsTest {

  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT = "00f067aa0ba902b7";

  private static Message traced(String id) {
    return new Message(
        id, "orders", new byte[0], Map.of("traceparent", "00-" + TRACE + "-" + PARENT + "-01"));
  }

  @Test
  void withoutACurrentObservationTheSpanContinuesTheMessagesTrace() {
    try (OtelTracing tracing = new OtelTracing()) {
      InboxObservations observations =
          InboxObservations.builder(tracing.registry).messagingSystem("kafka").build();
      String[] seen = new String[1];

      Outcome outcome =
          observations.consume(
              "orders",
              traced("m-1"),
              m -> {
                seen[0] = tracing.current();
                return Outcome.applied(m.id(), 1, null);
              });

      assertThat(outcome.status()).isEqualTo(Outcome.Status.APPLIED);
      SpanData span = tracing.span("orders process");
      assertThat(span.getTraceId()).isEqualTo(TRACE);
      assertThat(span.getParentSpanId()).isEqualTo(PARENT);
      assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(seen[0]).isEqualTo(TRACE + "/" + span.getSpanId());
      assertThat(span.getAttributes().get(AttributeKey.stringKey("messaging.system")))
          .isEqualTo("kafka");
      assertThat(span.getAttributes().get(AttributeKey.stringKey("inbox.outcome")))
          .isEqualTo("applied");
    }
  }

  @Test
  void insideACurrentObservationTheSpanIsItsChild() {
    try (OtelTracing tracing = new OtelTracing()) {
      InboxObservations observations = InboxObservations.builder(tracing.registry).build();
      Observation listener = Observation.start("listener", tracing.registry);
      try (Observation.Scope scope = listener.openScope()) {
        observations.consume("orders", traced("m-2"), m -> Outcome.applied(m.id(), 1, null));
      } finally {
        listener.stop();
      }

      SpanData parent = tracing.span("listener");
      SpanData span = tracing.span("orders process");
      assertThat(span.getTraceId()).isEqualTo(parent.getTraceId()).isNotEqualTo(TRACE);
      assertThat(span.getParentSpanId()).isEqualTo(parent.getSpanId());
    }
  }

  @Test
  void aFailureEndsTheSpanAsAnErrorAndIsRethrown() {
    try (OtelTracing tracing = new OtelTracing()) {
      InboxObservations observations = InboxObservations.builder(tracing.registry).build();
      LeaseLostException lost =
          new LeaseLostException(
              new Claim("orders", "m-3", 1, Instant.EPOCH), RecordState.PROCESSING, 2);

      assertThatThrownBy(
              () ->
                  observations.consume(
                      "orders",
                      traced("m-3"),
                      m -> {
                        throw lost;
                      }))
          .isSameAs(lost);
      observations.consume(
          "orders",
          traced("m-4"),
          m ->
              Outcome.failed(
                  m.id(), 1, Duration.ofSeconds(1), null, new IllegalStateException("handler")));

      SpanData thrown = spanOf(tracing, "m-3");
      assertThat(thrown.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(thrown.getAttributes().get(AttributeKey.stringKey("inbox.outcome")))
          .isEqualTo("lease_lost");
      SpanData failed = spanOf(tracing, "m-4");
      assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(failed.getAttributes().get(AttributeKey.stringKey("inbox.outcome")))
          .isEqualTo("failed");
      assertThat(failed.getAttributes().get(AttributeKey.stringKey("inbox.attempt")))
          .isEqualTo("1");
    }
  }

  @Test
  void badArgumentsAreRefusedBeforeAnythingIsObserved() {
    try (OtelTracing tracing = new OtelTracing()) {
      InboxObservations observations = InboxObservations.builder(tracing.registry).build();
      assertThatThrownBy(() -> observations.consume("orders", null, m -> null))
          .isInstanceOf(InvalidArgumentException.class);
      assertThatThrownBy(() -> InboxObservations.builder(null))
          .isInstanceOf(InvalidArgumentException.class);
      assertThatThrownBy(() -> InboxObservations.builder(tracing.registry).messagingSystem(" "))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("messagingSystem");
      assertThat(tracing.spans.getFinishedSpanItems()).isEmpty();
    }
  }

  private static SpanData spanOf(OtelTracing tracing, String messageId) {
    return tracing.spans.getFinishedSpanItems().stream()
        .filter(
            s ->
                messageId.equals(
                    s.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))))
        .findFirst()
        .orElseThrow();
  }
}
