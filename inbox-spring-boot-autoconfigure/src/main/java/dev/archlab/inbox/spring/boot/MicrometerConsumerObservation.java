package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.micrometer.InboxMetrics;
import dev.archlab.inbox.micrometer.InboxObservations;
import java.util.Objects;
import java.util.function.Function;

/**
 * Observes consumers with {@link InboxMetrics}: their events feed its counters and every {@code
 * consume} call of a {@link SpringTransactionalConsumer} its consume timer by outcome, inside an
 * {@code inbox.process} observation ({@link InboxObservations#consume}): a child of the current
 * observation (a Spring Kafka listener's), or else continuing the trace of the message's headers.
 */
final class MicrometerConsumerObservation implements ConsumerObservation {

  private final InboxMetrics metrics;
  private final InboxObservations observations;

  MicrometerConsumerObservation(InboxMetrics metrics, InboxObservations observations) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.observations = Objects.requireNonNull(observations, "observations");
  }

  @Override
  public InboxListener listener(String consumer) {
    return metrics.listener();
  }

  @Override
  public Outcome consume(
      String consumer, Message message, Function<? super Message, Outcome> consume) {
    return observations.consume(
        consumer, message, m -> metrics.timer(consumer).consume(m, consume));
  }
}
