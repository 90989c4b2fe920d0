package dev.archlab.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.memory.MemoryInboxStore;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The topology helper against the real broker: declares, is idempotent, refuses a mismatch. */
class RabbitTopologyTest {

  private static String queue() {
    return "topology-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void declaresEveryQueueAndIsIdempotent() throws Exception {
    RabbitTopology t = RabbitTopology.forQueue(queue());
    try (Connection c = RabbitBroker.get().connect()) {
      t.declare(c);
      t.declare(c);
      t.checkExists(c);
      try (Channel ch = c.createChannel()) {
        ch.queueDeclarePassive(t.workQueue());
        ch.queueDeclarePassive(t.retryQueue());
        ch.queueDeclarePassive(t.deadLetterQueue());
        ch.exchangeDeclarePassive(t.deadLetterExchange());
      }
    }
    assertThat(t.retryQueue()).isEqualTo(t.workQueue() + ".retry");
    assertThat(t.deadLetterExchange()).isEqualTo(t.workQueue() + ".dlx");
    assertThat(t.deadLetterQueue()).isEqualTo(t.workQueue() + ".dlq");
  }

  @Test
  void aRetryQueueThatRoutesElsewhereIsRefusedWithTheBrokersReason() throws Exception {
    RabbitTopology t = RabbitTopology.forQueue(queue());
    try (Connection c = RabbitBroker.get().connect()) {
      try (Channel ch = c.createChannel()) {
        ch.queueDeclare(
            t.retryQueue(),
            true,
            false,
            false,
            Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", "somewhere-else"));
      }
      assertThatThrownBy(() -> t.declare(c))
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining("x-dead-letter-routing-key")
          .hasMessageContaining(t.retryQueue());
    }
  }

  @Test
  void checkingOnlyRefusesAMissingRetryQueue() throws Exception {
    RabbitTopology t = RabbitTopology.forQueue(queue());
    try (Connection c = RabbitBroker.get().connect()) {
      try (Channel ch = c.createChannel()) {
        ch.queueDeclare(t.workQueue(), true, false, false, null);
      }
      assertThatThrownBy(() -> t.checkExists(c))
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessage("retry queue '" + t.retryQueue() + "' does not exist");
      ConsumeMode mode =
          IdempotentConsumer.builder("c", new MemoryInboxStore())
              .handler((m, a) -> {})
              .build()
              .asMode();
      RabbitInboxConsumer consumer =
          RabbitInboxConsumer.builder(RabbitBroker.get().factory(), t, mode)
              .declareTopology(false)
              .build();
      assertThatThrownBy(consumer::start)
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining("does not exist");
      consumer.close();
    }
  }
}
