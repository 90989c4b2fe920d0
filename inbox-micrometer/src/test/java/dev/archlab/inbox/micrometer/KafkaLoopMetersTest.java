package dev.archlab.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.kafka.PausedPartitions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
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
