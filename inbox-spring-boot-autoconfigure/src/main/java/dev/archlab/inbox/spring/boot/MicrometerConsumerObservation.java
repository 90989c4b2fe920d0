package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.micrometer.InboxMetrics;
import java.util.Objects;
import java.util.function.Function;

/**
 * Observes consumers with {@link InboxMetrics}: their events feed its counters and every {@code
 * consume} call of a {@link SpringTransactionalConsumer} its consume timer by outcome.
 */
final class MicrometerConsumerObservation implements ConsumerObservation {

  private final InboxMetrics metrics;

  MicrometerConsumerObservation(InboxMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public InboxListener listener(String consumer) {
    return metrics.listener();
  }

  @Override
  public Outcome consume(
      String consumer, Message message, Function<? super Message, Outcome> consume) {
    return metrics.timer(consumer).consume(message, consume);
  }
}
