package dev.archlab.inbox.micrometer;

import io.micrometer.core.instrument.Clock;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The last figures read from an {@link InboxStatsSource}, read again only when the interval has
 * passed on the monotonic clock: every gauge of every consumer is served from one read, however
 * often and however concurrently the registry is scraped. A failed read yields no figures (the
 * gauges show NaN) and is not retried before the interval has passed either, so an unreachable
 * database is not hammered by scrapes. Thread-safe.
 */
final class StatsCache {

  private static final System.Logger LOG = System.getLogger(StatsCache.class.getName());

  private final InboxStatsSource source;
  private final Clock clock;
  private final long intervalNanos;
  private boolean read; // guarded by this
  private long readAtNanos; // guarded by this
  private Map<String, InboxStats> figures; // guarded by this; null after a failed read
  private long reads; // guarded by this

  StatsCache(InboxStatsSource source, Clock clock, long intervalNanos) {
    this.source = source;
    this.clock = clock;
    this.intervalNanos = intervalNanos;
  }

  /** One consumer's figures, or null if the last read failed. */
  synchronized InboxStats figuresOf(String consumer) {
    long now = clock.monotonicTime();
    if (!read || now - readAtNanos >= intervalNanos) {
      // Holding the lock while reading is the point: concurrent scrapes wait for this one read.
      boolean failedBefore = read && figures == null;
      read = true;
      readAtNanos = now;
      reads++;
      figures = readSafely(failedBefore);
    }
    if (figures == null) {
      return null;
    }
    InboxStats stats = figures.get(consumer);
    return stats != null ? stats : InboxStats.empty(consumer);
  }

  /** How many reads were made, for tests. */
  synchronized long reads() {
    return reads;
  }

  private Map<String, InboxStats> readSafely(boolean failedBefore) {
    try {
      List<InboxStats> rows = source.read();
      if (rows == null) {
        throw new IllegalStateException("the stats source returned null");
      }
      Map<String, InboxStats> byConsumer = new HashMap<>();
      for (InboxStats row : rows) {
        if (row == null || byConsumer.put(row.consumer(), row) != null) {
          throw new IllegalStateException(
              "the stats source returned "
                  + (row == null ? "a null entry" : "two entries for consumer '" + row.consumer())
                  + (row == null ? "" : "'"));
        }
      }
      return byConsumer;
    } catch (RuntimeException e) {
      // One warning per run of failures; the gauges' NaN shows the rest.
      if (!failedBefore) {
        LOG.log(
            Level.WARNING,
            "reading the inbox store's figures failed; its gauges show NaN until a read succeeds",
            e);
      }
      return null;
    }
  }
}
