package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.kafka.PausedPartitions;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;

/**
 * The gauge of a {@code KafkaInboxLoop}'s paused partitions, read from the {@link PausedPartitions}
 * given to the loop as (part of) its listener. Kept in a class of its own so that {@code
 * inbox-kafka} is needed only by those who call it.
 *
 * <pre>{@code
 * PausedPartitions paused = new PausedPartitions();
 * KafkaInboxLoop loop = KafkaInboxLoop.builder(props, mode).topics("orders")
 *     .listener(KafkaLoopListener.all(paused, mine)).build();
 * KafkaLoopMeters.pausedPartitions("orders", paused).bindTo(registry);
 * }</pre>
 */
public final class KafkaLoopMeters {

  /** The gauge's name: partitions the loop holds paused now. */
  public static final String PAUSED_PARTITIONS = "inbox.kafka.partitions.paused";

  /**
   * The counter's name: seconds partitions spent paused, added over partitions, tagged {@code
   * reason} ({@code in_flight}, {@code failed}, {@code error}).
   */
  public static final String PAUSED_TIME = "inbox.kafka.partitions.paused.time";

  private KafkaLoopMeters() {}

  /**
   * A binder that registers {@value #PAUSED_PARTITIONS}, tagged {@code consumer}, reading {@link
   * PausedPartitions#count()} on every scrape, and {@value #PAUSED_TIME} (seconds, one counter per
   * reason) reading {@link PausedPartitions#pausedTime}. The meters keep {@code paused} reachable.
   *
   * @param consumer the loop's consumer name, for the {@code consumer} tag
   * @param paused the set given to the loop
   * @return the binder
   * @throws InvalidConsumerNameException if {@code consumer} is not a valid consumer name
   * @throws InvalidArgumentException if {@code paused} is null
   */
  public static MeterBinder pausedPartitions(String consumer, PausedPartitions paused) {
    Identifiers.requireConsumerName(consumer);
    if (paused == null) {
      throw new InvalidArgumentException("paused must not be null");
    }
    return registry -> {
      Gauge.builder(PAUSED_PARTITIONS, paused, PausedPartitions::count)
          .tag("consumer", consumer)
          .description(
              "Kafka partitions the loop holds paused now on an unfinished record (IN_FLIGHT,"
                  + " FAILED, an error or an unconfirmed dead letter)")
          .strongReference(true)
          .register(registry);
      for (PausedPartitions.Reason reason : PausedPartitions.Reason.values()) {
        FunctionCounter.builder(PAUSED_TIME, paused, p -> p.pausedTime(reason).toNanos() / 1e9)
            .tag("consumer", consumer)
            .tag("reason", reason.name().toLowerCase(Locale.ROOT))
            .baseUnit("seconds")
            .description(
                "Seconds Kafka partitions spent paused, added over partitions; in_flight is time"
                    + " spent waiting for a message another consumer holds")
            .register(registry);
      }
    };
  }
}
