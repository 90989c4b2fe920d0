package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer meters for Inbox consumers: a {@link MeterBinder} that also hands out an {@link
 * InboxListener} (counters from events) and per-consumer {@link ConsumeTimer}s (the consume timer),
 * with optional store gauges. Every meter is tagged with the consumer name and otherwise only with
 * fixed values (outcome, state), never with a message id; the names and tags are listed in
 * docs/METRICS.md.
 *
 * <pre>{@code
 * InboxMetrics metrics = InboxMetrics.builder()
 *     .stats(InboxStatsSource.of(operations)) // optional: gauges per state, stuck leases, age
 *     .statsInterval(Duration.ofSeconds(30))   // at most one store read per 30 s
 *     .consumers("orders")                     // meters from the start, before any event
 *     .build();
 * metrics.bindTo(registry);
 * IdempotentConsumer orders = IdempotentConsumer.builder("orders", store)
 *     .listener(metrics.listener()).handler(...).build();
 * Outcome outcome = metrics.timer("orders").consume(message, orders::consume);
 * }</pre>
 *
 * <p>A consumer's meters are registered together, all at zero, when it is named in {@link
 * Builder#consumers}, or else on its first event or its first {@link #timer}. The meters live in an
 * internal composite registry to which {@link #bindTo} adds the registries it is given; what is
 * recorded before the first {@code bindTo} is not kept. Gauges read the store through a cached
 * snapshot: at most one {@link InboxStatsSource#read()} per interval on the configured clock's
 * monotonic time, however many gauges, consumers and scrapes there are. Thread-safe.
 */
public final class InboxMetrics implements MeterBinder {

  /** Store reads are at most this frequent unless configured otherwise. */
  public static final Duration DEFAULT_STATS_INTERVAL = Duration.ofSeconds(30);

  private final CompositeMeterRegistry meters;
  private final Clock clock;
  private final StatsCache stats;
  private final ConcurrentHashMap<String, ConsumerMeters> byConsumer = new ConcurrentHashMap<>();
  private final InboxListener listener = this::onEvent;

  private InboxMetrics(Builder b) {
    this.clock = b.clock;
    this.meters = new CompositeMeterRegistry(b.clock);
    this.stats =
        b.stats == null ? null : new StatsCache(b.stats, b.clock, b.statsInterval.toNanos());
    for (String consumer : b.consumers) {
      metersOf(consumer);
    }
  }

  /**
   * A builder with no store gauges, the default interval and the system clock.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds {@code registry} to the registries the meters are published to: every meter registered so
   * far and later appears there. Binding the same registry again changes nothing.
   *
   * @param registry the registry to publish to
   * @throws InvalidArgumentException if {@code registry} is null
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    if (registry == null) {
      throw new InvalidArgumentException("registry must not be null");
    }
    meters.add(registry);
  }

  /**
   * The listener to give every consumer's builder ({@code .listener(metrics.listener())}). It
   * counts deliveries by outcome (one per delivery, from the outcome events, for every consumer
   * kind: no wrapping needed), takeovers, due retries, completion failures, dead letters (once per
   * parked message), lease overruns, prune runs and pruned records, per consumer; other events only
   * register the consumer's meters. Fast and non-blocking: it never reads the store.
   *
   * @return the listener; the same instance on every call
   */
  public InboxListener listener() {
    return listener;
  }

  /**
   * The consume timer of one consumer; registers the consumer's meters if this is their first use.
   *
   * @param consumer the consumer name, as given to the consumer's builder
   * @return a timer to call {@code consume} through
   * @throws InvalidConsumerNameException if the name is not a valid consumer name
   */
  public ConsumeTimer timer(String consumer) {
    Identifiers.requireConsumerName(consumer);
    return new ConsumeTimer(metersOf(consumer), clock);
  }

  private void onEvent(InboxEvent event) {
    ConsumerMeters m = metersOf(event.consumer());
    switch (event.kind()) {
      case TAKEOVER:
        m.takeovers.increment();
        break;
      case RETRY:
        m.retries.increment();
        break;
      case COMPLETION_FAILED:
        m.completionFailures.increment();
        break;
      case APPLIED:
        m.delivered(OutcomeTag.APPLIED).increment();
        break;
      case DUPLICATE:
        m.delivered(OutcomeTag.DUPLICATE).increment();
        break;
      case IN_FLIGHT:
        m.delivered(OutcomeTag.IN_FLIGHT).increment();
        break;
      case FAILED:
        m.delivered(OutcomeTag.FAILED).increment();
        break;
      case DEAD:
        m.deadLetters.increment();
        m.delivered(OutcomeTag.DEAD).increment();
        break;
      case DEAD_SEEN:
        m.delivered(OutcomeTag.DEAD).increment();
        break;
      case LEASE_LOST:
        m.delivered(OutcomeTag.LEASE_LOST).increment();
        break;
      case LEASE_OVERRUN:
        m.leaseOverruns.increment();
        break;
      case PRUNED:
        m.prunes.increment();
        m.prunedRecords.increment(event.count());
        break;
      default:
        // Claims and renewals are not metered: every claim ends in one of the outcomes above.
        break;
    }
  }

  private ConsumerMeters metersOf(String consumer) {
    ConsumerMeters m = byConsumer.get(consumer);
    return m != null
        ? m
        : byConsumer.computeIfAbsent(consumer, c -> new ConsumerMeters(c, meters, stats));
  }

  /** Builds {@link InboxMetrics}; validates each value as it is set. */
  public static final class Builder {
    private InboxStatsSource stats;
    private Duration statsInterval = DEFAULT_STATS_INTERVAL;
    private Clock clock = Clock.SYSTEM;
    private final List<String> consumers = new ArrayList<>();

    private Builder() {}

    /**
     * Where the store gauges (records per state, expired leases, oldest PROCESSING age) are read
     * from; without it there are no gauges.
     *
     * @param stats the source, such as {@link InboxStatsSource#of} or {@link
     *     InboxStatsSource#scanning}
     * @return this builder
     * @throws InvalidArgumentException if {@code stats} is null
     */
    public Builder stats(InboxStatsSource stats) {
      if (stats == null) {
        throw new InvalidArgumentException("stats must not be null");
      }
      this.stats = stats;
      return this;
    }

    /**
     * The shortest time between two store reads; scrapes in between are served the last figures.
     * Default {@link InboxMetrics#DEFAULT_STATS_INTERVAL}.
     *
     * @param interval the minimum interval, positive
     * @return this builder
     * @throws InvalidArgumentException if {@code interval} is null, zero, negative or too long to
     *     count in nanoseconds
     */
    public Builder statsInterval(Duration interval) {
      if (interval == null || interval.isZero() || interval.isNegative()) {
        throw new InvalidArgumentException("statsInterval must be positive, was " + interval);
      }
      try {
        interval.toNanos();
      } catch (ArithmeticException e) {
        throw new InvalidArgumentException(
            "statsInterval must be at most "
                + Duration.ofNanos(Long.MAX_VALUE)
                + ", was "
                + interval);
      }
      this.statsInterval = interval;
      return this;
    }

    /**
     * Consumers whose meters are registered at once, so they show zero before the first event (and
     * so gauges exist for a consumer this process never consumes for).
     *
     * @param names consumer names
     * @return this builder
     * @throws InvalidConsumerNameException if a name is not a valid consumer name
     * @throws InvalidArgumentException if {@code names} is null
     */
    public Builder consumers(String... names) {
      if (names == null) {
        throw new InvalidArgumentException("names must not be null");
      }
      for (String name : names) {
        consumers.add(Identifiers.requireConsumerName(name));
      }
      return this;
    }

    /**
     * The clock whose monotonic time measures consume durations and the stats interval. Default
     * {@link Clock#SYSTEM}; tests pass a {@code MockClock}.
     *
     * @param clock the clock
     * @return this builder
     * @throws InvalidArgumentException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      if (clock == null) {
        throw new InvalidArgumentException("clock must not be null");
      }
      this.clock = clock;
      return this;
    }

    /**
     * Builds the meters; those of the consumers named so far are registered now.
     *
     * @return the meters, bound to no registry yet
     */
    public InboxMetrics build() {
      return new InboxMetrics(this);
    }
  }
}
