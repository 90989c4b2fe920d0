package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.function.Function;

/**
 * What {@link InboxConsumers} attaches to every consumer it builds: a listener for its events and a
 * wrapper around each {@code consume} call. The auto-configuration supplies one backed by
 * Micrometer when the application has a {@code MeterRegistry}; without one, consumers are not
 * observed.
 */
public interface ConsumerObservation {

  /**
   * The listener for consumer {@code consumer}'s events.
   *
   * @param consumer the consumer name
   * @return the listener, never null
   */
  InboxListener listener(String consumer);

  /**
   * Runs one {@code consume} call of consumer {@code consumer}, observing its outcome.
   *
   * @param consumer the consumer name
   * @param message the delivery
   * @param consume the call to observe
   * @return what {@code consume} returned
   */
  Outcome consume(String consumer, Message message, Function<? super Message, Outcome> consume);
}
