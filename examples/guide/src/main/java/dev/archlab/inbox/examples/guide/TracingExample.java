package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.micrometer.InboxObservations;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;

/**
 * The tracing guide's example: deliveries traced as Micrometer Observations on the application's
 * {@link ObservationRegistry} (OpenTelemetry behind Micrometer Tracing's bridge, in an
 * application), through a Kafka loop's observer or around a call of your own.
 */
public final class TracingExample implements AutoCloseable {

  private final IdempotentConsumer orders;
  private final InboxObservations observations;

  /**
   * Builds the consumer and the observations.
   *
   * @param observationRegistry the application's registry, with its tracing handlers
   * @param handler the effect
   */
  public TracingExample(ObservationRegistry observationRegistry, MessageHandler handler) {
    this.orders =
        IdempotentConsumer.builder("orders", new MemoryInboxStore()).handler(handler).build();
    // tag::observations[]
    InboxObservations observations =
        InboxObservations.builder(observationRegistry)
            .messagingSystem("kafka") // for consume(...) below; an adapter names its own
            .build();
    // end::observations[]
    this.observations = observations;
  }

  /**
   * A Kafka loop that traces each record from its {@code traceparent} header to its dead letter.
   *
   * @param bootstrapServers the brokers
   * @return the loop, not running yet
   */
  public KafkaInboxLoop loop(String bootstrapServers) {
    // tag::loop[]
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(
                Map.of("bootstrap.servers", bootstrapServers, "group.id", "order-service"),
                orders.asMode())
            .topics("orders")
            .observer(observations.deliveryObserver()) // RabbitInboxConsumer has the same
            .build();
    // end::loop[]
    return loop;
  }

  /**
   * Consumes one delivery inside its own observation.
   *
   * @param message the delivery, its trace headers among its headers
   * @return what consuming it came to
   */
  public Outcome consume(Message message) {
    // tag::consume[]
    Outcome outcome = observations.consume("orders", message, orders::consume);
    // end::consume[]
    return outcome;
  }

  @Override
  public void close() {
    orders.close();
  }
}
