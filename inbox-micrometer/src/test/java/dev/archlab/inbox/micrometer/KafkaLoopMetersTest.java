package dev.archlab.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.kafka.PausedPartitions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The paused-partitions gauge follows the set the loop's callbacks keep (the loop itself is tested
 * on a real broker in inbox-kafka's PartitionEventsTest).
 */
class KafkaLoopMetersTest {

  @Test
  void theGaugeReadsThePartitionsPausedNow() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PausedPartitions paused = new PausedPartitions();
    KafkaLoopMeters.pausedPartitions("orders", paused).bindTo(registry);
    TopicPartition p0 = new TopicPartition("orders", 0);
    TopicPartition p1 = new TopicPartition("orders", 1);

    assertThat(gauge(registry)).isZero();
    paused.paused(p0, 7, Duration.ofSeconds(1));
    paused.paused(p1, 3, Duration.ofSeconds(1));
    assertThat(gauge(registry)).isEqualTo(2);
    paused.resumed(p0);
    assertThat(gauge(registry)).isEqualTo(1);
    paused.revoked(List.of(p0, p1));
    assertThat(gauge(registry)).isZero();
  }

  @Test
  void thePausedTimeCountsEachPauseUnderTheReasonOfTheRecordItWaitsAt() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Instant[] now = {Instant.parse("2026-01-01T00:00:00Z")};
    PausedPartitions paused = new PausedPartitions(() -> now[0]);
    KafkaLoopMeters.pausedPartitions("orders", paused).bindTo(registry);
    TopicPartition p0 = new TopicPartition("orders", 0);
    TopicPartition p1 = new TopicPartition("orders", 1);

    paused.outcome(record(0, 7), Outcome.inFlight("m7", 1, Duration.ofSeconds(30), null));
    paused.paused(p0, 7, Duration.ofSeconds(30));
    paused.outcome(record(1, 3), Outcome.failed("m3", 1, Duration.ofSeconds(1), null, null));
    paused.paused(p1, 3, Duration.ofSeconds(1));
    now[0] = now[0].plusSeconds(4);
    paused.resumed(p1);
    // Still paused: the time so far counts.
    assertThat(pausedSeconds(registry, "in_flight")).isEqualTo(4.0);
    assertThat(pausedSeconds(registry, "failed")).isEqualTo(4.0);
    now[0] = now[0].plusSeconds(6);
    paused.revoked(List.of(p0));
    paused.paused(p1, 3, Duration.ofSeconds(1)); // no outcome before it: a store error
    now[0] = now[0].plusSeconds(2);
    paused.resumed(p1);
    now[0] = now[0].plusSeconds(100); // nothing is paused: nothing more counts
    assertThat(pausedSeconds(registry, "in_flight")).isEqualTo(10.0);
    assertThat(pausedSeconds(registry, "failed")).isEqualTo(4.0);
    assertThat(pausedSeconds(registry, "error")).isEqualTo(2.0);
    assertThat(gauge(registry)).isZero();
  }

  private static ConsumerRecord<byte[], byte[]> record(int partition, long offset) {
    return new ConsumerRecord<>("orders", partition, offset, new byte[0], new byte[0]);
  }

  private static double pausedSeconds(SimpleMeterRegistry registry, String reason) {
    return registry
        .get(KafkaLoopMeters.PAUSED_TIME)
        .tag("consumer", "orders")
        .tag("reason", reason)
        .functionCounter()
        .count();
  }

  @Test
  void refusesABadNameOrNoSet() {
    assertThatThrownBy(() -> KafkaLoopMeters.pausedPartitions(" padded", new PausedPartitions()))
        .isInstanceOf(InvalidConsumerNameException.class);
    assertThatThrownBy(() -> KafkaLoopMeters.pausedPartitions("orders", null))
        .isInstanceOf(InvalidArgumentException.class);
  }

  private static double gauge(SimpleMeterRegistry registry) {
    return registry
        .get(KafkaLoopMeters.PAUSED_PARTITIONS)
        .tag("consumer", "orders")
        .gauge()
        .value();
  }
}
