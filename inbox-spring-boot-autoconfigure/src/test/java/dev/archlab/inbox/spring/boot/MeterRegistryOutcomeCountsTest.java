package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The page's outcome source reads the {@code inbox.consume} timer counts per consumer and outcome
 * from a real registry, and leaves out a timer of that name without the Inbox tags.
 */
class MeterRegistryOutcomeCountsTest {

  @Test
  void countsPerConsumerAndOutcomeAndIgnoresForeignTimers() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MeterRegistryOutcomeCounts counts = new MeterRegistryOutcomeCounts(registry);
    assertThat(counts.totals()).isEmpty();

    timer(registry, "orders", "applied").record(Duration.ofMillis(1));
    timer(registry, "orders", "applied").record(Duration.ofMillis(1));
    timer(registry, "orders", "duplicate").record(Duration.ofMillis(1));
    timer(registry, "payments", "dead");
    Timer.builder("inbox.consume")
        .tag("consumer", "orders")
        .register(registry)
        .record(Duration.ofMillis(1));

    assertThat(counts.totals())
        .isEqualTo(
            Map.of(
                "orders", Map.of("applied", 2L, "duplicate", 1L),
                "payments", Map.of("dead", 0L)));
  }

  private static Timer timer(SimpleMeterRegistry registry, String consumer, String outcome) {
    return Timer.builder("inbox.consume")
        .tag("consumer", consumer)
        .tag("outcome", outcome)
        .register(registry);
  }
}
