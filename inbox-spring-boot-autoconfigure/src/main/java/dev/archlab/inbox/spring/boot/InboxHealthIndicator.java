package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the inbox, on whichever store the application uses (JDBC or Redis): DOWN if the store
 * cannot be read; otherwise UP with where the records are ({@code store}) and each consumer's
 * counts as details. A consumer with at least {@code inbox.health.stuck-leases-threshold} expired
 * PROCESSING leases, or at least {@code inbox.health.dead-threshold} DEAD records, is listed under
 * {@code attention}; that makes the status DOWN only if {@code inbox.health.down-on-threshold} is
 * set, because stuck or dead messages rarely mean that restarting the instance helps.
 */
public final class InboxHealthIndicator implements HealthIndicator {

  private final InboxOperations operations;
  private final InboxProperties.Health settings;

  InboxHealthIndicator(InboxOperations operations, InboxProperties.Health settings) {
    this.operations = Objects.requireNonNull(operations, "operations");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  @Override
  public Health health() {
    List<ConsumerOverview> stats;
    try {
      stats = operations.stats(DedupWindow.DEFAULT.retention());
    } catch (RuntimeException e) {
      return Health.down(e).withDetail("store", operations.location()).build();
    }
    Map<String, Object> consumers = new LinkedHashMap<>();
    List<String> attention = new ArrayList<>();
    for (ConsumerOverview s : stats) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("processing", s.processing());
      row.put("done", s.done());
      row.put("dead", s.dead());
      row.put("stuckLeases", s.expiredLeases());
      row.put("oldestProcessingAge", s.oldestProcessingAge().toString());
      consumers.put(s.consumer(), row);
      if (s.expiredLeases() >= settings.getStuckLeasesThreshold()) {
        attention.add(s.consumer() + ": " + s.expiredLeases() + " stuck leases");
      }
      if (s.dead() >= settings.getDeadThreshold()) {
        attention.add(s.consumer() + ": " + s.dead() + " DEAD records");
      }
    }
    Health.Builder health =
        attention.isEmpty() || !settings.isDownOnThreshold() ? Health.up() : Health.down();
    health.withDetail("store", operations.location()).withDetail("consumers", consumers);
    if (!attention.isEmpty()) {
      health.withDetail("attention", attention);
    }
    return health.build();
  }
}
