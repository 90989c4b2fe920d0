package dev.archlab.inbox.kafka;

import dev.archlab.inbox.Outcome;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the loop did, for metrics and tests. Called on the loop's threads; must not block and must
 * not throw (an exception is logged and ignored). Every method has a no-op default.
 */
public interface KafkaLoopListener {

  /** A record was consumed with this outcome. */
  default void outcome(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {}

  /** A record was confirmed by the broker on the dead-letter topic. */
  default void deadLettered(ConsumerRecord<byte[], byte[]> record, String reason) {}

  /** Publishing a record to the dead-letter topic failed; its offset does not move. */
  default void deadLetterFailed(ConsumerRecord<byte[], byte[]> record, Exception error) {}

  /** A partition was paused at {@code offset}, to be read again after {@code retryAfter}. */
  default void paused(TopicPartition partition, long offset, Duration retryAfter) {}

  /** Offsets were committed (the next offset to read, per partition). */
  default void committed(Map<TopicPartition, Long> offsets) {}

  /** The no-op listener. */
  static KafkaLoopListener none() {
    return new KafkaLoopListener() {};
  }
}
