package dev.archlab.inbox.kafka;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * The loop's answer to partitions being revoked, lost or assigned. Runs inside poll(), on the
 * polling thread, so it touches the loop's partition table without locks.
 */
final class Rebalance implements ConsumerRebalanceListener {
  private final KafkaInboxLoop loop;

  Rebalance(KafkaInboxLoop loop) {
    this.loop = loop;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
    for (TopicPartition tp : revoked) {
      PartitionState s = loop.partitions.get(tp);
      if (s != null) {
        s.stop = true;
      }
    }
    // Running handlers finish (their records were claimed under a lease), then what finished
    // is committed while these partitions are still ours.
    loop.applyProgress(true);
    loop.commit(revoked);
    loop.partitions.keySet().removeAll(new HashSet<>(revoked));
    if (!revoked.isEmpty()) {
      Set<TopicPartition> gone = Set.copyOf(revoked);
      loop.notifyListener(() -> loop.listener.revoked(gone));
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> lost) {
    for (TopicPartition tp : lost) {
      PartitionState s = loop.partitions.get(tp);
      if (s != null) {
        s.stop = true;
      }
    }
    loop.applyProgress(true);
    // No commit: the partitions already belong to another member.
    loop.partitions.keySet().removeAll(new HashSet<>(lost));
    if (!lost.isEmpty()) {
      Set<TopicPartition> gone = Set.copyOf(lost);
      loop.notifyListener(() -> loop.listener.lost(gone));
    }
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
    for (TopicPartition tp : assigned) {
      loop.partitions.put(tp, new PartitionState());
    }
    if (!assigned.isEmpty()) {
      Set<TopicPartition> added = Set.copyOf(assigned);
      loop.notifyListener(() -> loop.listener.assigned(added));
    }
  }
}
