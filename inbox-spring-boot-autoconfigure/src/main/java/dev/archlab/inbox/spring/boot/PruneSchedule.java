package dev.archlab.inbox.spring.boot;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * How {@link InboxPruner} runs repeatedly: on a daemon thread of its own in an application, by hand
 * in a test (which then drives each run instead of waiting for one).
 */
@FunctionalInterface
interface PruneSchedule {

  /**
   * Starts running {@code task} every {@code interval}, the first run one interval from now.
   *
   * @return stops the runs; a run under way is interrupted
   */
  Runnable start(Runnable task, Duration interval);

  /** A single daemon thread named {@code inbox-prune}, with a fixed delay between runs. */
  static PruneSchedule daemonThread() {
    return (task, interval) -> {
      ScheduledExecutorService executor =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "inbox-prune");
                t.setDaemon(true);
                return t;
              });
      long nanos = interval.toNanos();
      executor.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
      return executor::shutdownNow;
    };
  }
}
