package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.InboxObservations.ATTEMPT;
import static dev.archlab.inbox.micrometer.InboxObservations.CONSUMER;
import static dev.archlab.inbox.micrometer.InboxObservations.DESTINATION;
import static dev.archlab.inbox.micrometer.InboxObservations.MESSAGE_ID;
import static dev.archlab.inbox.micrometer.InboxObservations.OPERATION_NAME;
import static dev.archlab.inbox.micrometer.InboxObservations.OPERATION_TYPE;
import static dev.archlab.inbox.micrometer.InboxObservations.OUTCOME;
import static dev.archlab.inbox.micrometer.InboxObservations.PROCESS;
import static dev.archlab.inbox.micrometer.InboxObservations.SYSTEM;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.DeliveryObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The {@value InboxObservations#PROCESS} observation of one delivery. Its context is a {@link
 * ReceiverContext} over the delivery's headers, so the tracing handler starts its span from the
 * producer's context found there; inside a current observation it is a plain child of that one.
 * Used by one thread at a time, as {@link DeliveryObserver} promises.
 */
final class DeliveryObservation implements DeliveryObserver.Observed {

  /** The {@value InboxObservations#OUTCOME} of a delivery rejected for having no valid id. */
  static final String REJECTED = "rejected";

  /** Until an outcome is known: a delivery ended without one (which an adapter never does). */
  static final String UNKNOWN = "unknown";

  private final ObservationRegistry registry;
  private final DeliveryObserver.Received delivery;
  private final Observation observation;
  private boolean ended;

  private DeliveryObservation(
      ObservationRegistry registry, DeliveryObserver.Received delivery, Observation observation) {
    this.registry = registry;
    this.delivery = delivery;
    this.observation = observation;
  }

  /** Starts the observation of a delivery an adapter received. */
  static DeliveryObservation start(ObservationRegistry registry, DeliveryObserver.Received d) {
    return start(registry, d, null);
  }

  /**
   * Starts the observation of {@code d}: a child of {@code parent} when there is one, else
   * continuing the trace in the delivery's headers.
   */
  static DeliveryObservation start(
      ObservationRegistry registry, DeliveryObserver.Received d, Observation parent) {
    Observation.Context context;
    if (parent == null) {
      ReceiverContext<UnaryOperator<String>> received =
          new ReceiverContext<>((carrier, key) -> carrier == null ? null : carrier.apply(key));
      received.setCarrier(d.header());
      context = received;
    } else {
      context = new Observation.Context();
    }
    Observation observation =
        Observation.createNotStarted(PROCESS, () -> context, registry)
            .contextualName(d.destination() + " process")
            .lowCardinalityKeyValue(SYSTEM, d.system())
            .lowCardinalityKeyValue(OPERATION_TYPE, "process")
            .lowCardinalityKeyValue(OPERATION_NAME, "process")
            .lowCardinalityKeyValue(DESTINATION, d.destination())
            .lowCardinalityKeyValue(CONSUMER, d.consumer())
            .lowCardinalityKeyValue(OUTCOME, UNKNOWN);
    if (d.messageId() != null) {
      observation.highCardinalityKeyValue(MESSAGE_ID, d.messageId());
    }
    for (Map.Entry<String, String> a : d.attributes().entrySet()) {
      observation.highCardinalityKeyValue(a.getKey(), a.getValue());
    }
    if (parent != null) {
      observation.parentObservation(parent);
    }
    return new DeliveryObservation(registry, d, observation.start());
  }

  @Override
  public DeliveryObserver.Scope openScope() {
    Observation.Scope scope = observation.openScope();
    return scope::close;
  }

  @Override
  public void outcome(Outcome outcome) {
    if (outcome == null) {
      observation.lowCardinalityKeyValue(OUTCOME, OutcomeTag.ERROR.value());
      return;
    }
    observation.lowCardinalityKeyValue(OUTCOME, OutcomeTag.of(outcome).value());
    observation.highCardinalityKeyValue(ATTEMPT, Integer.toString(outcome.attempts()));
    Outcome.Status status = outcome.status();
    if ((status == Outcome.Status.FAILED || status == Outcome.Status.DEAD)
        && outcome.error() != null) {
      observation.error(outcome.error()); // the handler threw in this delivery
    }
  }

  @Override
  public void failed(Throwable error) {
    observation.lowCardinalityKeyValue(OUTCOME, OutcomeTag.of(error).value());
    observation.error(error);
  }

  @Override
  public void rejected(String reason) {
    observation.lowCardinalityKeyValue(OUTCOME, REJECTED);
    if (reason != null) {
      observation.highCardinalityKeyValue("inbox.rejected.reason", reason);
    }
  }

  @Override
  public DeliveryObserver.Publish publishing(DeliveryObserver.Purpose purpose, String destination) {
    return PublishObservation.start(registry, observation, delivery, purpose, destination);
  }

  @Override
  public void end() {
    if (!ended) {
      ended = true;
      observation.stop();
    }
  }
}
