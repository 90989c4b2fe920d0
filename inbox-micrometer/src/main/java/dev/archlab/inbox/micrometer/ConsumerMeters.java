package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.RecordState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Every meter of one consumer, registered together when the consumer is first named or seen, so
 * each shows zero from the start (a rate over a counter that appears late misses its first
 * increments). Tags are the consumer name and, per meter, a fixed set of values: never a message
 * id. The meter names are documented in docs/METRICS.md.
 */
final class ConsumerMeters {

  static final String CONSUME = "inbox.consume";
  static final String DELIVERIES = "inbox.deliveries";
  static final String TAKEOVERS = "inbox.takeovers";
  static final String RETRIES = "inbox.retries";
  static final String COMPLETION_FAILURES = "inbox.completion.failures";
  static final String DEAD_LETTERS = "inbox.dead.letters";
  static final String LEASE_OVERRUNS = "inbox.lease.overruns";
  static final String PRUNES = "inbox.prunes";
  static final String PRUNED_RECORDS = "inbox.pruned.records";
  static final String RECORDS = "inbox.records";
  static final String OLDEST_PROCESSING_AGE = "inbox.processing.oldest.age";
  static final String EXPIRED_LEASES = "inbox.leases.expired";

  static final String CONSUMER_TAG = "consumer";
  static final String OUTCOME_TAG = "outcome";
  static final String STATE_TAG = "state";

  private final Map<OutcomeTag, Timer> consume = new EnumMap<>(OutcomeTag.class);
  private final Map<OutcomeTag, Counter> deliveries = new EnumMap<>(OutcomeTag.class);
  final Counter takeovers;
  final Counter retries;
  final Counter completionFailures;
  final Counter deadLetters;
  final Counter leaseOverruns;
  final Counter prunes;
  final Counter prunedRecords;

  ConsumerMeters(String consumer, MeterRegistry registry, StatsCache stats) {
    Tags tags = Tags.of(CONSUMER_TAG, consumer);
    for (OutcomeTag outcome : OutcomeTag.values()) {
      consume.put(
          outcome,
          Timer.builder(CONSUME)
              .description("Calls of consume, per delivered message, by how they ended")
              .tags(tags)
              .tag(OUTCOME_TAG, outcome.value())
              .register(registry));
    }
    for (OutcomeTag outcome : OutcomeTag.values()) {
      if (outcome != OutcomeTag.ERROR) { // no event reports an exception the caller sees
        deliveries.put(
            outcome,
            Counter.builder(DELIVERIES)
                .description("Deliveries by how they ended, counted from the consumer's events")
                .tags(tags)
                .tag(OUTCOME_TAG, outcome.value())
                .register(registry));
      }
    }
    takeovers =
        counter(
            TAKEOVERS,
            "Claims taken over after a lease ran out under another run (its effect may repeat)",
            tags,
            registry);
    retries = counter(RETRIES, "Due retries claimed after a recorded failure", tags, registry);
    completionFailures =
        counter(
            COMPLETION_FAILURES,
            "Handlers that returned but whose DONE could not be recorded (the message runs again)",
            tags,
            registry);
    deadLetters =
        counter(DEAD_LETTERS, "Messages parked DEAD and dead-lettered, once each", tags, registry);
    leaseOverruns =
        counter(
            LEASE_OVERRUNS,
            "Completions recorded at or after the end of their lease by the store's clock",
            tags,
            registry);
    prunes = counter(PRUNES, "Prune runs of the consumer's expired DONE records", tags, registry);
    prunedRecords = counter(PRUNED_RECORDS, "DONE records deleted by prune runs", tags, registry);
    if (stats != null) {
      registerGauges(consumer, tags, registry, stats);
    }
  }

  Timer consume(OutcomeTag outcome) {
    return consume.get(outcome);
  }

  /** The deliveries counter of {@code outcome}; none for {@link OutcomeTag#ERROR}. */
  Counter delivered(OutcomeTag outcome) {
    return deliveries.get(outcome);
  }

  private static Counter counter(String name, String description, Tags tags, MeterRegistry r) {
    return Counter.builder(name).description(description).tags(tags).register(r);
  }

  private static void registerGauges(
      String consumer, Tags tags, MeterRegistry registry, StatsCache stats) {
    for (RecordState state : RecordState.values()) {
      Gauge.builder(RECORDS, stats, figure(consumer, s -> count(s, state)))
          .description("Records by state, read from the store at most once per interval")
          .tags(tags)
          .tag(STATE_TAG, state.name().toLowerCase(Locale.ROOT))
          .strongReference(true)
          .register(registry);
    }
    Gauge.builder(EXPIRED_LEASES, stats, figure(consumer, InboxStats::expiredLeases))
        .description(
            "PROCESSING records whose lease or retry time has passed (stuck if it stays up)")
        .tags(tags)
        .strongReference(true)
        .register(registry);
    TimeGauge.builder(
            OLDEST_PROCESSING_AGE,
            stats,
            TimeUnit.NANOSECONDS,
            figure(consumer, s -> saturatedNanos(s.oldestProcessingAge())))
        .description("Age of the oldest PROCESSING record by the store's clock; 0 when none")
        .tags(tags)
        .register(registry);
  }

  private static ToDoubleFunction<StatsCache> figure(
      String consumer, ToDoubleFunction<InboxStats> read) {
    return cache -> {
      InboxStats s = cache.figuresOf(consumer);
      return s == null ? Double.NaN : read.applyAsDouble(s);
    };
  }

  private static double count(InboxStats s, RecordState state) {
    switch (state) {
      case PROCESSING:
        return s.processing();
      case DONE:
        return s.done();
      case DEAD:
        return s.dead();
      default:
        throw new IllegalStateException("unknown state " + state);
    }
  }

  private static double saturatedNanos(java.time.Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE; // an age beyond 292 years: report the largest
    }
  }
}
