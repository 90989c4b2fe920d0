package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the transactional outbox: DOWN if its table cannot be read; otherwise UP with the rows
 * per state and the age of the oldest PENDING row as details. At least {@code
 * inbox.outbox.health.dead-threshold} DEAD rows, or a PENDING row older than {@code
 * inbox.outbox.health.oldest-pending-threshold} (no relay publishing, or the broker refusing), is
 * listed under {@code attention}; that makes the status DOWN only with {@code
 * inbox.outbox.health.down-on-threshold}, because restarting the instance rarely helps.
 */
public final class OutboxHealthIndicator implements HealthIndicator {

  private final Outbox outbox;
  private final InboxOutboxProperties.Health settings;

  OutboxHealthIndicator(Outbox outbox, InboxOutboxProperties.Health settings) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  @Override
  public Health health() {
    OutboxAdmin.Counts counts;
    Duration oldest;
    try {
      counts = outbox.admin().counts();
      oldest = outbox.admin().oldestPendingAge().orElse(Duration.ZERO);
    } catch (RuntimeException e) {
      return Health.down(e).withDetail("table", outbox.table().value()).build();
    }
    List<String> attention = new ArrayList<>();
    if (counts.dead() >= settings.getDeadThreshold()) {
      attention.add(counts.dead() + " DEAD rows (inbox outbox list --state DEAD)");
    }
    if (oldest.compareTo(settings.getOldestPendingThreshold()) >= 0) {
      attention.add("the oldest PENDING row has waited " + oldest + " (is a relay running?)");
    }
    Health.Builder health =
        attention.isEmpty() || !settings.isDownOnThreshold() ? Health.up() : Health.down();
    health
        .withDetail("table", outbox.table().value())
        .withDetail("pending", counts.pending())
        .withDetail("dead", counts.dead())
        .withDetail("sent", counts.sent())
        .withDetail("oldestPendingAge", oldest.toString());
    if (!attention.isEmpty()) {
      health.withDetail("attention", attention);
    }
    return health.build();
  }
}
