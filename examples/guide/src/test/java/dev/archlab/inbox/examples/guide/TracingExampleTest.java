package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import dev.archlab.inbox.micrometer.InboxObservations;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The tracing example's consume is one observation, current in the handler, reading the headers.
 */
class TracingExampleTest {

  @Test
  void eachConsumeIsAnObservationCurrentInTheHandler() {
    List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }

              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }
            });
    List<String> seen = new CopyOnWriteArrayList<>();
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    try (TracingExample example =
        new TracingExample(
            registry,
            (message, attempt) ->
                seen.add(registry.getCurrentObservation().getContext().getContextualName()))) {
      Outcome outcome =
          example.consume(
              new Message("o-1", "orders", new byte[0], Map.of("traceparent", traceparent)));
      try (KafkaInboxLoop loop = example.loop("127.0.0.1:9")) {
        assertThat(loop).isNotNull(); // built only: run() would connect
      }

      assertThat(outcome.status()).isEqualTo(Outcome.Status.APPLIED);
      assertThat(seen).containsExactly("orders process");
      assertThat(stopped).hasSize(1);
      Observation.Context process = stopped.get(0);
      assertThat(process.getName()).isEqualTo(InboxObservations.PROCESS);
      assertThat(process.getLowCardinalityKeyValues())
          .contains(
              KeyValue.of("messaging.system", "kafka"), KeyValue.of("inbox.outcome", "applied"));
      @SuppressWarnings("unchecked")
      ReceiverContext<Object> received = (ReceiverContext<Object>) process;
      assertThat(received.getGetter().get(received.getCarrier(), "traceparent"))
          .isEqualTo(traceparent);
    }
  }
}
