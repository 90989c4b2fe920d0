package dev.archlab.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.ConsumeMode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Builder and naming rules, and the TTL rounding; no broker needed. */
class ConsumerBuilderTest {

  /** A mode of {@code size} that is never called: building consumes nothing. */
  private static ConsumeMode batchOf(int size) {
    return new ConsumeMode() {
      @Override
      public String consumerName() {
        return "b";
      }

      @Override
      public int maxBatch() {
        return size;
      }

      @Override
      public List<Outcome> consume(List<Message> messages) {
        throw new AssertionError("not called");
      }
    };
  }

  @Test
  void aPrefetchBelowTheBatchSizeIsRefused() {
    RabbitInboxConsumer.Builder b =
        RabbitInboxConsumer.builder(
                new ConnectionFactory(), RabbitTopology.forQueue("q"), batchOf(300))
            .prefetch(200);
    assertThatThrownBy(b::build)
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("prefetch (200) must be at least the batch size (300)");
  }

  @Test
  void badValuesAreRefusedNamingThem() {
    RabbitInboxConsumer.Builder b =
        RabbitInboxConsumer.builder(
            new ConnectionFactory(), RabbitTopology.forQueue("q"), batchOf(10));
    assertThatThrownBy(() -> b.consumers(0)).hasMessage("consumers must be >= 1, was 0");
    assertThatThrownBy(() -> b.prefetch(0))
        .hasMessage("prefetch must be between 1 and 65535, was 0");
    assertThatThrownBy(() -> b.maxRetryDelay(Duration.ZERO))
        .hasMessage("maxRetryDelay must be positive, was PT0S");
    b.minRetryDelay(Duration.ofSeconds(5)).maxRetryDelay(Duration.ofSeconds(1));
    assertThatThrownBy(b::build).hasMessageContaining("minRetryDelay (PT5S) must not exceed");
    assertThatThrownBy(() -> b.maxDeliveriesPerCall(0))
        .hasMessage("maxDeliveriesPerCall must be >= 1, was 0");
    assertThatThrownBy(() -> b.linger(Duration.ofMillis(-1)))
        .hasMessage("linger must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> ConsumeMode.batches(null, 1, ms -> List.of()))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> RabbitIds.header(" "))
        .isInstanceOf(InvalidConfigurationException.class);
  }

  @Test
  void theCallersFactoryIsNotChanged() {
    ConnectionFactory f = new ConnectionFactory();
    f.setAutomaticRecoveryEnabled(false);
    RabbitInboxConsumer.builder(f, RabbitTopology.forQueue("q"), batchOf(10)).build();
    assertThat(f.isAutomaticRecoveryEnabled()).isFalse();
  }

  @Test
  void topologyNamesMustDiffer() {
    assertThatThrownBy(() -> RabbitTopology.forQueue("q").withRetryQueue("q"))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("must differ from the work queue 'q'");
    assertThatThrownBy(() -> RabbitTopology.forQueue(""))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("work queue name must be 1 to 255 characters");
  }

  @Test
  void theTtlIsRoundedUpAndKeptWithinItsBounds() {
    Duration min = Duration.ofMillis(100);
    Duration max = Duration.ofSeconds(30);
    assertThat(Settlement.ttlMillis(Duration.ofNanos(1_500_000_001L), min, max)).isEqualTo(1501);
    assertThat(Settlement.ttlMillis(Duration.ofMillis(1500), min, max)).isEqualTo(1500);
    assertThat(Settlement.ttlMillis(Duration.ZERO, min, max)).isEqualTo(100);
    assertThat(Settlement.ttlMillis(Duration.ofMinutes(5), min, max)).isEqualTo(30_000);
  }
}
