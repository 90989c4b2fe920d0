package dev.archlab.inbox.kafka;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.BrokerDecision;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link KafkaLoopListener} that keeps the partitions a loop holds paused now, and how long
 * partitions have been paused in all, by reason, for meters and for an operator: a partition enters
 * on {@link #paused} and leaves on {@link #resumed}, {@link #revoked} or {@link #lost}. A partition
 * that stays here while its pause should have ended is one that paused and never resumed; a growing
 * {@link #pausedTime(Reason) pausedTime(IN_FLIGHT)} is a partition waiting for a message another
 * consumer holds, such as the claims of a killed lease-mode batch until their lease ends. Updated
 * on the loop's threads, read from any thread.
 *
 * <p>Give it to the loop with {@link KafkaInboxLoop.Builder#listener}, combined with an own
 * listener through {@link KafkaLoopListener#all}. {@code inbox-micrometer}'s {@code
 * KafkaLoopMeters} turns {@link #count()} and {@link #pausedTime} into meters.
 */
public final class PausedPartitions implements KafkaLoopListener {

  /** Why a partition paused: the answer for the record it waits at. */
  public enum Reason {
    /**
     * IN_FLIGHT ({@link BrokerDecision.Action#REDELIVER_WHEN_RELEASED}): another consumer holds the
     * message (its lease or its transaction).
     */
    IN_FLIGHT,
    /**
     * FAILED ({@link BrokerDecision.Action#REDELIVER_FOR_RETRY}): the handler failed and the
     * message waits for its retry time.
     */
    FAILED,
    /** A store error or a dead letter the broker did not confirm. */
    ERROR
  }

  private record Pause(long offset, Instant since, Reason reason) {}

  private final Map<TopicPartition, Pause> pauses = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Reason> lastUnfinished = new ConcurrentHashMap<>();
  private final Map<Reason, LongAdder> endedNanos = new EnumMap<>(Reason.class);
  private final InstantSource clock;

  /** An empty set, to be given to one loop; times are read from the system clock. */
  public PausedPartitions() {
    this(InstantSource.system());
  }

  /**
   * An empty set whose pause times are read from {@code clock}.
   *
   * @param clock the clock pauses are timed with
   * @throws NullPointerException if {@code clock} is null
   */
  public PausedPartitions(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    for (Reason r : Reason.values()) {
      endedNanos.put(r, new LongAdder());
    }
  }

  /**
   * How many partitions are paused now.
   *
   * @return the number of paused partitions
   */
  public int count() {
    return pauses.size();
  }

  /**
   * The partitions paused now.
   *
   * @return an immutable snapshot
   */
  public Set<TopicPartition> partitions() {
    return Set.copyOf(pauses.keySet());
  }

  /**
   * The offset each paused partition waits at (the record that is not finished).
   *
   * @return an immutable snapshot
   */
  public Map<TopicPartition, Long> offsets() {
    Map<TopicPartition, Long> out = new HashMap<>();
    pauses.forEach((tp, p) -> out.put(tp, p.offset()));
    return Map.copyOf(out);
  }

  /**
   * How long partitions have been paused for {@code reason} since this set was made, added over
   * partitions: ended pauses plus the time so far of those still paused.
   *
   * @param reason why they paused
   * @return the total paused time, never negative
   */
  public Duration pausedTime(Reason reason) {
    long nanos = endedNanos.get(reason).sum();
    Instant now = clock.instant();
    for (Pause p : pauses.values()) {
      if (p.reason() == reason) {
        nanos += nanosBetween(p.since(), now);
      }
    }
    return Duration.ofNanos(nanos);
  }

  /** Remembers why the partition's next pause happens: the record it stops at was unfinished. */
  @Override
  public void outcome(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    switch (BrokerDecision.of(outcome).action()) {
      case REDELIVER_WHEN_RELEASED -> lastUnfinished.put(tp, Reason.IN_FLIGHT);
      case REDELIVER_FOR_RETRY -> lastUnfinished.put(tp, Reason.FAILED);
      case ACKNOWLEDGE, DEAD_LETTER, REDELIVER_AFTER_ERROR -> lastUnfinished.remove(tp);
    }
  }

  @Override
  public void paused(TopicPartition partition, long offset, Duration retryAfter) {
    Reason reason = lastUnfinished.remove(partition);
    Pause previous =
        pauses.put(
            partition, new Pause(offset, clock.instant(), reason == null ? Reason.ERROR : reason));
    if (previous != null) {
      end(previous);
    }
  }

  @Override
  public void resumed(TopicPartition partition) {
    end(pauses.remove(partition));
  }

  @Override
  public void revoked(Collection<TopicPartition> partitions) {
    endAll(partitions);
  }

  @Override
  public void lost(Collection<TopicPartition> partitions) {
    endAll(partitions);
  }

  private void endAll(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      end(pauses.remove(tp));
      lastUnfinished.remove(tp);
    }
  }

  private void end(Pause pause) {
    if (pause != null) {
      endedNanos.get(pause.reason()).add(nanosBetween(pause.since(), clock.instant()));
    }
  }

  private static long nanosBetween(Instant from, Instant to) {
    return Math.max(0, Duration.between(from, to).toNanos());
  }

  @Override
  public String toString() {
    return "PausedPartitions" + offsets();
  }
}
