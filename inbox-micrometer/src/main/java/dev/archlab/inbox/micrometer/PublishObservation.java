package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.InboxObservations.CONSUMER;
import static dev.archlab.inbox.micrometer.InboxObservations.DESTINATION;
import static dev.archlab.inbox.micrometer.InboxObservations.MESSAGE_ID;
import static dev.archlab.inbox.micrometer.InboxObservations.OPERATION_NAME;
import static dev.archlab.inbox.micrometer.InboxObservations.OPERATION_TYPE;
import static dev.archlab.inbox.micrometer.InboxObservations.PUBLISH;
import static dev.archlab.inbox.micrometer.InboxObservations.PURPOSE;
import static dev.archlab.inbox.micrometer.InboxObservations.SYSTEM;

import dev.archlab.inbox.broker.DeliveryObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@value InboxObservations#PUBLISH} observation of one copy an adapter publishes, a child of
 * its delivery's. Its context is a {@link SenderContext} over a map: on start the tracing handler
 * writes the new span's context there ({@code traceparent}), and the adapter copies the map into
 * the published message's headers.
 */
final class PublishObservation implements DeliveryObserver.Publish {

  private final Observation observation;
  private final Map<String, String> headers;
  private boolean ended;

  private PublishObservation(Observation observation, Map<String, String> headers) {
    this.observation = observation;
    this.headers = headers;
  }

  static PublishObservation start(
      ObservationRegistry registry,
      Observation parent,
      DeliveryObserver.Received delivery,
      DeliveryObserver.Purpose purpose,
      String destination) {
    Map<String, String> headers = new LinkedHashMap<>();
    SenderContext<Map<String, String>> context =
        new SenderContext<>(
            (carrier, key, value) -> {
              if (carrier != null) {
                carrier.put(key, value);
              }
            });
    context.setCarrier(headers);
    Observation observation =
        Observation.createNotStarted(PUBLISH, () -> context, registry)
            .contextualName(destination + " send")
            .parentObservation(parent)
            .lowCardinalityKeyValue(SYSTEM, delivery.system())
            .lowCardinalityKeyValue(OPERATION_TYPE, "send")
            .lowCardinalityKeyValue(OPERATION_NAME, "send")
            .lowCardinalityKeyValue(DESTINATION, destination)
            .lowCardinalityKeyValue(CONSUMER, delivery.consumer())
            .lowCardinalityKeyValue(PURPOSE, purpose.name().toLowerCase(Locale.ROOT));
    if (delivery.messageId() != null) {
      observation.highCardinalityKeyValue(MESSAGE_ID, delivery.messageId());
    }
    return new PublishObservation(observation.start(), headers);
  }

  @Override
  public Map<String, String> headers() {
    return Map.copyOf(headers);
  }

  @Override
  public void published() {
    stop();
  }

  @Override
  public void failed(Throwable error) {
    if (!ended) {
      observation.error(error);
    }
    stop();
  }

  private void stop() {
    if (!ended) {
      ended = true;
      observation.stop();
    }
  }
}
