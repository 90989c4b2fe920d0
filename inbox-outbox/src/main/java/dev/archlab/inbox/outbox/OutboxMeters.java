package dev.archlab.inbox.outbox;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Gauges of a transactional outbox's backlog, for alerting on a relay that stopped or a broker that
 * refuses: {@value #MESSAGES} per state ({@code pending}, {@code dead}, {@code sent}: acknowledged
 * rows not yet pruned) and {@value #OLDEST_PENDING}, how long the oldest unsent row has waited (0
 * when none is pending), both tagged with the outbox's table name.
 *
 * <p>The figures are read through one cached snapshot: at most one read of the outbox (its counts
 * and its oldest pending row, two statements) per interval of the registry clock's monotonic time,
 * however many gauges and scrapes there are. A failed read shows NaN until a read succeeds and is
 * not retried before the interval has passed, so an unreachable database is not hammered by
 * scrapes. Thread-safe.
 *
 * <pre>{@code
 * new OutboxMeters(outbox.admin(), outbox.table().value(), Duration.ofSeconds(30))
 *     .bindTo(registry);
 * }</pre>
 */
public final class OutboxMeters implements MeterBinder {

  /** Rows of the outbox per state. */
  public static final String MESSAGES = "inbox.outbox.messages";

  /** Age of the oldest PENDING row, on the database clock. */
  public static final String OLDEST_PENDING = "inbox.outbox.oldest.pending";

  private static final System.Logger LOG = System.getLogger(OutboxMeters.class.getName());

  private final OutboxAdmin admin;
  private final String outbox;
  private final long intervalNanos;
  private Clock clock = Clock.SYSTEM; // the registry's, set by bindTo
  private boolean read; // guarded by this
  private long readAtNanos; // guarded by this
  private Snapshot last; // guarded by this; null after a failed read
  private long reads; // guarded by this

  private record Snapshot(OutboxAdmin.Counts counts, Duration oldestPending) {}

  /**
   * Gauges of the outbox {@code admin} reads.
   *
   * @param admin the outbox's operator reads ({@code outbox.admin()})
   * @param outbox the value of the {@code outbox} tag, usually the table name
   * @param interval the least time between two reads of the outbox, positive
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public OutboxMeters(OutboxAdmin admin, String outbox, Duration interval) {
    this.admin = Objects.requireNonNull(admin, "admin");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    if (interval == null || interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("interval must be positive, was " + interval);
    }
    this.intervalNanos = interval.toNanos();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    synchronized (this) {
      clock = registry.config().clock();
    }
    Tags tags = Tags.of("outbox", outbox);
    gauge(registry, tags, "pending", OutboxAdmin.Counts::pending);
    gauge(registry, tags, "dead", OutboxAdmin.Counts::dead);
    gauge(registry, tags, "sent", OutboxAdmin.Counts::sent);
    TimeGauge.builder(
            OLDEST_PENDING,
            this,
            TimeUnit.SECONDS,
            m -> m.figure(s -> s.oldestPending().toNanos() / 1e9))
        .tags(tags)
        .description("How long the oldest unsent outbox row has waited (0 when none is pending)")
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry, Tags tags, String state, ToDoubleFunction<OutboxAdmin.Counts> count) {
    Gauge.builder(MESSAGES, this, m -> m.figure(s -> count.applyAsDouble(s.counts())))
        .tags(tags.and("state", state))
        .description("Outbox rows in this state")
        .baseUnit("messages")
        .register(registry);
  }

  /** A figure of the current snapshot, reading the outbox again once the interval has passed. */
  private synchronized double figure(ToDoubleFunction<Snapshot> of) {
    long now = clock.monotonicTime();
    if (!read || now - readAtNanos >= intervalNanos) {
      // Holding the lock while reading: concurrent scrapes wait for this one read.
      boolean failedBefore = read && last == null;
      read = true;
      readAtNanos = now;
      reads++;
      try {
        last = new Snapshot(admin.counts(), admin.oldestPendingAge().orElse(Duration.ZERO));
      } catch (RuntimeException e) {
        if (!failedBefore) {
          LOG.log(
              System.Logger.Level.WARNING,
              "reading outbox '" + outbox + "' failed; its gauges show NaN until a read succeeds",
              e);
        }
        last = null;
      }
    }
    return last == null ? Double.NaN : of.applyAsDouble(last);
  }

  /** How many reads of the outbox were made, for tests. */
  synchronized long reads() {
    return reads;
  }
}
