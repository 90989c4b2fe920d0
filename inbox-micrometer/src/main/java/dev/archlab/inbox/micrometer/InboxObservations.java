package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.DeliveryObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.function.Function;

/**
 * Traces Inbox deliveries with Micrometer Observations, named and tagged after OpenTelemetry's
 * messaging conventions, so that OpenTelemetry (or Brave) picks them up through Micrometer
 * Tracing's bridge and the registry's meter handler times them. Each delivery is one {@value
 * #PROCESS} observation (span {@code "<destination> process"}, kind CONSUMER) that continues the
 * producer's trace from the delivery's headers (W3C {@code traceparent} with the OpenTelemetry
 * bridge: whatever propagator the tracer has) and is current while the handler runs; a copy the
 * adapter publishes while settling the delivery (a dead letter, a RabbitMQ retry) is a child
 * {@value #PUBLISH} observation (span {@code "<destination> send"}, kind PRODUCER) whose context is
 * written into the copy's headers.
 *
 * <pre>{@code
 * InboxObservations observations = InboxObservations.builder(observationRegistry).build();
 * KafkaInboxLoop loop = KafkaInboxLoop.builder(props, consumer.asMode()).topics("orders")
 *     .observer(observations.deliveryObserver()).build();
 * // or, without an adapter, around a call of your own:
 * Outcome outcome = observations.consume(consumer.name(), message, consumer::consume);
 * }</pre>
 *
 * <p>Tags of {@value #PROCESS}, low cardinality (also meter tags): {@value #SYSTEM}, {@value
 * #OPERATION_TYPE} {@code process}, {@value #OPERATION_NAME} {@code process}, {@value
 * #DESTINATION}, {@value #CONSUMER}, {@value #OUTCOME} ({@code applied}, {@code duplicate}, {@code
 * in_flight}, {@code failed}, {@code dead}, {@code lease_lost}, {@code error}, and {@code rejected}
 * for a delivery without a valid message id). High cardinality (span attributes only): {@value
 * #MESSAGE_ID}, {@value #ATTEMPT} (the record's attempt count the outcome reports) and what the
 * adapter adds ({@code messaging.consumer.group.name}, {@code messaging.destination.partition.id},
 * {@code messaging.kafka.offset}, ...): the consumer group is left off the meters so that Kafka and
 * RabbitMQ deliveries share one set of tag keys. Tags of {@value #PUBLISH}: {@value #SYSTEM},
 * {@value #OPERATION_TYPE} {@code send}, {@value #OPERATION_NAME} {@code send}, {@value
 * #DESTINATION}, {@value #CONSUMER}, {@value #PURPOSE} ({@code dead_letter}, {@code retry}); high:
 * {@value #MESSAGE_ID}. Thread-safe.
 */
public final class InboxObservations {

  /** Name of the observation of one delivery (and of its timer). */
  public static final String PROCESS = "inbox.process";

  /** Name of the observation of a copy published while settling a delivery. */
  public static final String PUBLISH = "inbox.publish";

  /** The messaging system: {@code kafka}, {@code rabbitmq}, or the configured one. */
  public static final String SYSTEM = "messaging.system";

  /** OpenTelemetry's operation type: {@code process} or {@code send}. */
  public static final String OPERATION_TYPE = "messaging.operation.type";

  /** OpenTelemetry's operation name: {@code process} or {@code send}. */
  public static final String OPERATION_NAME = "messaging.operation.name";

  /** The topic or queue a delivery came from, or where a copy goes. */
  public static final String DESTINATION = "messaging.destination.name";

  /** The message id (high cardinality). */
  public static final String MESSAGE_ID = "messaging.message.id";

  /** The Inbox consumer's name. */
  public static final String CONSUMER = "inbox.consumer";

  /** How the delivery ended. */
  public static final String OUTCOME = "inbox.outcome";

  /** The record's attempt count the outcome reports (high cardinality). */
  public static final String ATTEMPT = "inbox.attempt";

  /** Why a copy was published: {@code dead_letter} or {@code retry}. */
  public static final String PURPOSE = "inbox.publish.purpose";

  /** Default of {@link Builder#messagingSystem}. */
  public static final String DEFAULT_SYSTEM = "unknown";

  private final ObservationRegistry registry;
  private final String system;
  private final DeliveryObserver observer;

  private InboxObservations(Builder b) {
    this.registry = b.registry;
    this.system = b.system;
    this.observer = delivery -> DeliveryObservation.start(registry, delivery);
  }

  /**
   * A builder observing into {@code registry}.
   *
   * @param registry where the observations go; {@code ObservationRegistry.NOOP} observes nothing
   * @return a new builder
   * @throws InvalidArgumentException if {@code registry} is null
   */
  public static Builder builder(ObservationRegistry registry) {
    if (registry == null) {
      throw new InvalidArgumentException("registry must not be null");
    }
    return new Builder(registry);
  }

  /**
   * The observer to give a broker adapter ({@code KafkaInboxLoop.Builder#observer}, {@code
   * RabbitInboxConsumer.Builder#observer}): one {@value #PROCESS} observation per delivery,
   * continuing the trace of the delivery's headers, and a child {@value #PUBLISH} per copy it
   * publishes.
   *
   * @return the observer; the same instance on every call
   */
  public DeliveryObserver deliveryObserver() {
    return observer;
  }

  /**
   * Calls {@code consume} with {@code message} inside a {@value #PROCESS} observation, current
   * while it runs, tagged with the outcome. Inside an observation that is current already (a
   * framework's listener observation) it is that one's child; otherwise it continues the trace of
   * the message's {@link Message#headers() headers}. The destination is the message's topic, the
   * system the configured {@link Builder#messagingSystem}.
   *
   * @param consumer the consumer's name, for the {@value #CONSUMER} tag
   * @param message the delivery, passed on as it is
   * @param consume the consumer's {@code consume}, such as {@code consumer::consume}
   * @return what {@code consume} returned
   * @throws InvalidArgumentException if {@code consumer}, {@code message} or {@code consume} is
   *     null (nothing is called or observed)
   * @throws RuntimeException whatever {@code consume} threw, after recording it
   */
  public Outcome consume(
      String consumer, Message message, Function<? super Message, Outcome> consume) {
    if (consumer == null || message == null || consume == null) {
      throw new InvalidArgumentException("consumer, message and consume must not be null");
    }
    Map<String, String> headers = message.headers();
    DeliveryObserver.Received delivery =
        new DeliveryObserver.Received(
            system, message.topic(), consumer, message.id(), Map.of(), headers::get);
    Observation parent = registry.getCurrentObservation();
    DeliveryObservation observed = DeliveryObservation.start(registry, delivery, parent);
    try (DeliveryObserver.Scope scope = observed.openScope()) {
      Outcome outcome = consume.apply(message);
      observed.outcome(outcome);
      return outcome;
    } catch (RuntimeException | Error e) {
      observed.failed(e);
      throw e;
    } finally {
      observed.end();
    }
  }

  /** Builds {@link InboxObservations}. */
  public static final class Builder {
    private final ObservationRegistry registry;
    private String system = DEFAULT_SYSTEM;

    private Builder(ObservationRegistry registry) {
      this.registry = registry;
    }

    /**
     * The {@value #SYSTEM} of deliveries observed through {@link #consume} (an adapter names its
     * own). Default {@value #DEFAULT_SYSTEM}.
     *
     * @param system OpenTelemetry's name of the system, such as {@code kafka} or {@code rabbitmq}
     * @return this builder
     * @throws InvalidArgumentException if {@code system} is null or blank
     */
    public Builder messagingSystem(String system) {
      if (system == null || system.isBlank()) {
        throw new InvalidArgumentException(
            "messagingSystem must not be blank, was '" + system + "'");
      }
      this.system = system;
      return this;
    }

    /**
     * Builds the observations.
     *
     * @return the observations
     */
    public InboxObservations build() {
      return new InboxObservations(this);
    }
  }
}
