package dev.archlab.inbox.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link KafkaLoopListener} that keeps the partitions a loop holds paused now, for a gauge and
 * for an operator: a partition enters on {@link #paused} and leaves on {@link #resumed}, {@link
 * #revoked} or {@link #lost}. A partition that stays here while its pause should have ended is one
 * that paused and never resumed. Updated on the loop's polling thread, read from any thread.
 *
 * <p>Give it to the loop with {@link KafkaInboxLoop.Builder#listener}, combined with an own
 * listener through {@link KafkaLoopListener#all}. {@code inbox-micrometer}'s {@code
 * KafkaLoopMeters} turns {@link #count()} into a gauge.
 */
public final class PausedPartitions implements KafkaLoopListener {

  private final Map<TopicPartition, Long> offsets = new ConcurrentHashMap<>();

  /** An empty set, to be given to one loop. */
  public PausedPartitions() {}

  /**
   * How many partitions are paused now.
   *
   * @return the number of paused partitions
   */
  public int count() {
    return offsets.size();
  }

  /**
   * The partitions paused now.
   *
   * @return an immutable snapshot
   */
  public Set<TopicPartition> partitions() {
    return Set.copyOf(offsets.keySet());
  }

  /**
   * The offset each paused partition waits at (the record that is not finished).
   *
   * @return an immutable snapshot
   */
  public Map<TopicPartition, Long> offsets() {
    return Map.copyOf(offsets);
  }

  @Override
  public void paused(TopicPartition partition, long offset, Duration retryAfter) {
    offsets.put(partition, offset);
  }

  @Override
  public void resumed(TopicPartition partition) {
    offsets.remove(partition);
  }

  @Override
  public void revoked(Collection<TopicPartition> partitions) {
    offsets.keySet().removeAll(partitions);
  }

  @Override
  public void lost(Collection<TopicPartition> partitions) {
    offsets.keySet().removeAll(partitions);
  }

  @Override
  public String toString() {
    return "PausedPartitions" + offsets;
  }
}
