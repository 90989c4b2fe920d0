package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The page's outcome source reads the {@code inbox.deliveries} counts per consumer and outcome from
 * a real registry, and leaves out a counter of that name without the Inbox tags.
 */
class MeterRegistryOutcomeCountsTest {

  @Test
  void countsPerConsumerAndOutcomeAndIgnoresForeignCounters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MeterRegistryOutcomeCounts counts = new MeterRegistryOutcomeCounts(registry);
    assertThat(counts.totals()).isEmpty();

    counter(registry, "orders", "applied").increment();
    counter(registry, "orders", "applied").increment();
    counter(registry, "orders", "duplicate").increment();
    counter(registry, "payments", "dead");
    Counter.builder("inbox.deliveries").tag("consumer", "orders").register(registry).increment();

    assertThat(counts.totals())
        .isEqualTo(
            Map.of(
                "orders", Map.of("applied", 2L, "duplicate", 1L),
                "payments", Map.of("dead", 0L)));
  }

  private static Counter counter(SimpleMeterRegistry registry, String consumer, String outcome) {
    return Counter.builder("inbox.deliveries")
        .tag("consumer", consumer)
        .tag("outcome", outcome)
        .register(registry);
  }
}
