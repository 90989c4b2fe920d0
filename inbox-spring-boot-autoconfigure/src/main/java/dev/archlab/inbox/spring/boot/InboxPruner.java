package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes, every {@code inbox.prune.interval}, the DONE records past each known consumer's
 * retention (the consumers in {@code inbox.consumers.*} and those built through {@link
 * IdempotentConsumers}), measured in the store's clock (the database's, or the Redis server's).
 * Runs on one daemon thread of its own, started and stopped with the application context.
 *
 * <p>Safe on every instance at once: a prune deletes only DONE records older than the retention, in
 * batches (on JDBC, {@code inbox.prune-batch-size} rows per statement), so two instances pruning
 * together delete each row once and never hold long locks. A failed run is logged and the next one
 * runs on schedule.
 */
public final class InboxPruner implements SmartLifecycle {

  private static final Log log = LogFactory.getLog(InboxPruner.class);

  private final InboxStore store;
  private final IdempotentConsumers consumers;
  private final Duration interval;
  private final PruneSchedule schedule;
  private Runnable stopRuns;

  InboxPruner(InboxStore store, IdempotentConsumers consumers, Duration interval) {
    this(store, consumers, interval, PruneSchedule.daemonThread());
  }

  InboxPruner(
      InboxStore store, IdempotentConsumers consumers, Duration interval, PruneSchedule schedule) {
    this.store = Objects.requireNonNull(store, "store");
    this.consumers = Objects.requireNonNull(consumers, "consumers");
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new InvalidConfigurationException(
          "inbox.prune.interval must be positive, was " + interval);
    }
    this.interval = interval;
    this.schedule = Objects.requireNonNull(schedule, "schedule");
  }

  /**
   * Prunes every known consumer once, now.
   *
   * @return records deleted, by consumer
   */
  public Map<String, Long> pruneNow() {
    Map<String, Long> deleted = new LinkedHashMap<>();
    Instant now = store.currentTime();
    for (Map.Entry<String, InboxConfig> e : consumers.configs().entrySet()) {
      Duration retention = e.getValue().dedupWindow().retention();
      long count = store.prune(e.getKey(), now.minus(retention));
      consumers.reportPruned(e.getKey(), count, now);
      deleted.put(e.getKey(), count);
    }
    return deleted;
  }

  // Never throws: a run that threw would end a ScheduledExecutorService's schedule for good.
  private void runScheduled() {
    try {
      Map<String, Long> deleted = pruneNow();
      if (log.isDebugEnabled()) {
        log.debug("inbox prune deleted " + deleted);
      }
    } catch (RuntimeException e) {
      log.warn("inbox prune failed; the next run is in " + interval, e);
    }
  }

  @Override
  public synchronized void start() {
    if (stopRuns == null) {
      stopRuns = schedule.start(this::runScheduled, interval);
    }
  }

  @Override
  public synchronized void stop() {
    if (stopRuns != null) {
      stopRuns.run();
      stopRuns = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return stopRuns != null;
  }
}
