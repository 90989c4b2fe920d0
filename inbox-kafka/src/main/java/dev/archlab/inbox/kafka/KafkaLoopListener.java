package dev.archlab.inbox.kafka;

import dev.archlab.inbox.Outcome;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the loop did, for metrics, operators and tests. Called on the loop's threads; must not block
 * and must not throw (an exception is logged and ignored). Every method has a no-op default.
 *
 * <p>A partition's life on one loop: {@link #assigned}, then any number of {@link #paused} each
 * followed by {@link #resumed} (or ended by {@link #revoked} or {@link #lost}), then {@link
 * #revoked} or {@link #lost}. So a partition that paused and was neither resumed nor taken away is
 * paused now; {@link PausedPartitions} keeps that set.
 */
public interface KafkaLoopListener {

  /** A record was consumed with this outcome. */
  default void outcome(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {}

  /** A record was confirmed by the broker on the dead-letter topic. */
  default void deadLettered(ConsumerRecord<byte[], byte[]> record, String reason) {}

  /** Publishing a record to the dead-letter topic failed; its offset does not move. */
  default void deadLetterFailed(ConsumerRecord<byte[], byte[]> record, Exception error) {}

  /**
   * A partition was paused at {@code offset} (its record was IN_FLIGHT, FAILED, failed with an
   * error, or its dead letter was not confirmed), to be read again after {@code retryAfter}.
   */
  default void paused(TopicPartition partition, long offset, Duration retryAfter) {}

  /**
   * A paused partition's pause ended and it is read again from the offset it paused at; it pauses
   * again if that record is still not finished. Called on the polling thread.
   */
  default void resumed(TopicPartition partition) {}

  /**
   * Partitions were assigned to this loop by the group; their records are read from the committed
   * offsets. Called on the polling thread, inside {@code poll}; never with an empty collection.
   */
  default void assigned(Collection<TopicPartition> partitions) {}

  /**
   * Partitions were revoked by a rebalance or by closing: their running handlers finished (up to
   * the close timeout) and what finished was committed. Paused ones among them are no longer paused
   * by this loop. Called on the polling thread; never with an empty collection.
   */
  default void revoked(Collection<TopicPartition> partitions) {}

  /**
   * Partitions were lost: the group considers this member gone (no heartbeat within {@code
   * session.timeout.ms}, or {@code max.poll.interval.ms} passed), so nothing was committed for them
   * and another member reads them from the last commit. Called on the polling thread; never with an
   * empty collection.
   */
  default void lost(Collection<TopicPartition> partitions) {}

  /** Offsets were committed (the next offset to read, per partition). */
  default void committed(Map<TopicPartition, Long> offsets) {}

  /** The no-op listener. */
  static KafkaLoopListener none() {
    return new KafkaLoopListener() {};
  }

  /**
   * A listener that calls each of {@code listeners} in order; one that throws is logged and the
   * others are still called.
   *
   * @param listeners the listeners, for example {@link PausedPartitions} and an application's own
   * @return the combined listener
   * @throws NullPointerException if a listener is null
   */
  static KafkaLoopListener all(KafkaLoopListener... listeners) {
    return new ListenerChain(List.of(listeners));
  }
}
