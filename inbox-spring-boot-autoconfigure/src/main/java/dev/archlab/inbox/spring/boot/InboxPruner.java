package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes, every {@code inbox.prune.interval}, the DONE records past each known consumer's
 * retention (the consumers in {@code inbox.consumers.*} and those built through {@link
 * InboxConsumers}), measured in the database's clock. Runs on one daemon thread of its own, started
 * and stopped with the application context.
 *
 * <p>Safe on every instance at once: a prune deletes only DONE records older than the retention, in
 * batches of {@code inbox.prune-batch-size} rows per statement, so two instances pruning together
 * delete each row once and never hold long locks. A failed run is logged and the next one runs on
 * schedule.
 */
public final class InboxPruner implements SmartLifecycle {

  private static final Log log = LogFactory.getLog(InboxPruner.class);

  private final JdbcInboxStore store;
  private final InboxConsumers consumers;
  private final Duration interval;
  private ScheduledExecutorService executor;

  InboxPruner(JdbcInboxStore store, InboxConsumers consumers, Duration interval) {
    this.store = Objects.requireNonNull(store, "store");
    this.consumers = Objects.requireNonNull(consumers, "consumers");
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new InvalidConfigurationException(
          "inbox.prune.interval must be positive, was " + interval);
    }
    this.interval = interval;
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
      deleted.put(e.getKey(), store.prune(e.getKey(), now.minus(retention)));
    }
    return deleted;
  }

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
    if (executor != null) {
      return;
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "inbox-prune");
              t.setDaemon(true);
              return t;
            });
    long nanos = interval.toNanos();
    executor.scheduleWithFixedDelay(this::runScheduled, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public synchronized void stop() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return executor != null;
  }
}
