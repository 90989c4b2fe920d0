package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The metrics guide's example: the timer counts each delivery under its outcome. */
class MetricsExampleTest {

  @Test
  void consumeTimerCountsAppliedAndDuplicateDeliveries() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (MetricsExample example = new MetricsExample(registry, (message, attempt) -> {})) {
      example.consume(Messages.payment("order-1", 1));
      example.consume(Messages.payment("order-1", 1));
      example.consume(Messages.payment("order-2", 2));
    }

    assertThat(
            registry
                .get("inbox.consume")
                .tag("consumer", "orders")
                .tag("outcome", "applied")
                .timer()
                .count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("inbox.consume")
                .tag("consumer", "orders")
                .tag("outcome", "duplicate")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("inbox.deliveries")
                .tag("consumer", "orders")
                .tag("outcome", "applied")
                .counter()
                .count())
        .isEqualTo(2.0);
  }
}
