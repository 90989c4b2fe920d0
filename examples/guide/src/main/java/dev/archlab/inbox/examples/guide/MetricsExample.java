package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.micrometer.InboxMetrics;
import dev.archlab.inbox.micrometer.InboxStatsSource;
import dev.archlab.inbox.store.InboxStore;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The metrics guide's example: the Inbox meters of one consumer bound to a Micrometer registry,
 * without Spring. The consume timer counts deliveries by outcome; the listener counts events; the
 * gauges read the store's records.
 */
public final class MetricsExample implements AutoCloseable {

  private final IdempotentConsumer orders;
  private final InboxMetrics metrics;

  /**
   * Binds the meters to the registry and builds the consumer.
   *
   * @param registry where the meters go (Prometheus, or a {@code SimpleMeterRegistry} in a test)
   * @param handler the effect
   */
  public MetricsExample(MeterRegistry registry, MessageHandler handler) {
    InboxStore store = new MemoryInboxStore();
    // tag::metrics[]
    InboxMetrics metrics =
        InboxMetrics.builder()
            .stats(InboxStatsSource.scanning(store)) // of(operations) on a JDBC or Redis store
            .consumers("orders")
            .build();
    metrics.bindTo(registry); // a MeterBinder
    IdempotentConsumer orders =
        IdempotentConsumer.builder("orders", store)
            .listener(metrics.listener())
            .handler(handler)
            .build();
    // end::metrics[]
    this.orders = orders;
    this.metrics = metrics;
  }

  /**
   * Consumes one delivery through the timer.
   *
   * @param message the delivery
   * @return what consuming it came to
   */
  public Outcome consume(Message message) {
    // tag::timer[]
    Outcome outcome = metrics.timer("orders").consume(message, orders::consume);
    // end::timer[]
    return outcome;
  }

  @Override
  public void close() {
    orders.close();
  }
}
