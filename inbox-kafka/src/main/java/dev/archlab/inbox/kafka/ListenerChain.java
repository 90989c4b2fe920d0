package dev.archlab.inbox.kafka;

import dev.archlab.inbox.Outcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link KafkaLoopListener#all}: each listener in order, one that throws does not stop the rest.
 */
final class ListenerChain implements KafkaLoopListener {

  private static final System.Logger LOG = System.getLogger(ListenerChain.class.getName());

  private final List<KafkaLoopListener> listeners;

  ListenerChain(List<KafkaLoopListener> listeners) {
    this.listeners = listeners;
  }

  private void each(Consumer<KafkaLoopListener> call) {
    for (KafkaLoopListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "loop listener threw", e);
      }
    }
  }

  @Override
  public void outcome(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
    each(l -> l.outcome(record, outcome));
  }

  @Override
  public void deadLettered(ConsumerRecord<byte[], byte[]> record, String reason) {
    each(l -> l.deadLettered(record, reason));
  }

  @Override
  public void deadLetterFailed(ConsumerRecord<byte[], byte[]> record, Exception error) {
    each(l -> l.deadLetterFailed(record, error));
  }

  @Override
  public void paused(TopicPartition partition, long offset, Duration retryAfter) {
    each(l -> l.paused(partition, offset, retryAfter));
  }

  @Override
  public void resumed(TopicPartition partition) {
    each(l -> l.resumed(partition));
  }

  @Override
  public void assigned(Collection<TopicPartition> partitions) {
    each(l -> l.assigned(partitions));
  }

  @Override
  public void revoked(Collection<TopicPartition> partitions) {
    each(l -> l.revoked(partitions));
  }

  @Override
  public void lost(Collection<TopicPartition> partitions) {
    each(l -> l.lost(partitions));
  }

  @Override
  public void committed(Map<TopicPartition, Long> offsets) {
    each(l -> l.committed(offsets));
  }
}
