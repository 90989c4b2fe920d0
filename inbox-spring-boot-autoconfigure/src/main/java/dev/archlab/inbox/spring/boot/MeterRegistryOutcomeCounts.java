package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.ui.OutcomeCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The operator page's outcome source read from a meter registry: every {@code inbox.deliveries}
 * counter that {@code inbox-micrometer} registers, per {@code consumer} tag and {@code outcome} tag
 * (names as in docs/METRICS.md). That counter is fed by the consumers' events, so it counts every
 * consumer kind the starter builds, not only the calls a consume timer wraps. A counter only grows,
 * which is what the page's per-refresh rates need. Thread-safe: it reads the registry on every call
 * and keeps nothing.
 */
final class MeterRegistryOutcomeCounts implements OutcomeCounts {

  // The meter and tag names of inbox-micrometer's ConsumerMeters, which keeps them package-private.
  static final String DELIVERIES_METER = "inbox.deliveries";
  static final String CONSUMER_TAG = "consumer";
  static final String OUTCOME_TAG = "outcome";

  private final MeterRegistry registry;

  MeterRegistryOutcomeCounts(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public Map<String, Map<String, Long>> totals() {
    Map<String, Map<String, Long>> totals = new TreeMap<>();
    for (Counter counter : registry.find(DELIVERIES_METER).counters()) {
      String consumer = counter.getId().getTag(CONSUMER_TAG);
      String outcome = counter.getId().getTag(OUTCOME_TAG);
      if (consumer == null || outcome == null) {
        continue; // Not one of ours: another library's meter of the same name.
      }
      // Summed, not put: a registry may hold the same tags twice under different extra tags.
      totals
          .computeIfAbsent(consumer, c -> new TreeMap<>())
          .merge(outcome, (long) counter.count(), Long::sum);
    }
    return totals;
  }
}
