package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.ui.OutcomeCounts;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The operator page's outcome source read from a meter registry: the count of every {@code
 * inbox.consume} timer that {@code inbox-micrometer} registers, per {@code consumer} tag and {@code
 * outcome} tag (names as in docs/METRICS.md). A timer's count only grows, which is what the page's
 * per-refresh rates need. Thread-safe: it reads the registry on every call and keeps nothing.
 */
final class MeterRegistryOutcomeCounts implements OutcomeCounts {

  // The meter and tag names of inbox-micrometer's ConsumerMeters, which keeps them package-private.
  static final String CONSUME_METER = "inbox.consume";
  static final String CONSUMER_TAG = "consumer";
  static final String OUTCOME_TAG = "outcome";

  private final MeterRegistry registry;

  MeterRegistryOutcomeCounts(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public Map<String, Map<String, Long>> totals() {
    Map<String, Map<String, Long>> totals = new TreeMap<>();
    for (Timer timer : registry.find(CONSUME_METER).timers()) {
      String consumer = timer.getId().getTag(CONSUMER_TAG);
      String outcome = timer.getId().getTag(OUTCOME_TAG);
      if (consumer == null || outcome == null) {
        continue; // Not one of ours: another library's meter of the same name.
      }
      // Summed, not put: a registry may hold the same tags twice under different extra tags.
      totals
          .computeIfAbsent(consumer, c -> new TreeMap<>())
          .merge(outcome, timer.count(), Long::sum);
    }
    return totals;
  }
}
