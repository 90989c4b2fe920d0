package dev.archlab.inbox;

import dev.archlab.inbox.broker.ConsumeMode;
import java.util.List;

/**
 * {@link IdempotentConsumer} as a {@link ConsumeMode}: one delivery per call through {@code
 * consume}, or, for an in-order loop that allows several, {@code consumeInOrder}. Both run an
 * interceptor around each delivery, since each delivery has its own claim and completion.
 */
final class ConsumerMode implements ConsumeMode {

  private final IdempotentConsumer consumer;
  private final int maxBatch;

  ConsumerMode(IdempotentConsumer consumer, int maxBatch) {
    this.consumer = consumer;
    this.maxBatch = maxBatch;
  }

  @Override
  public String consumerName() {
    return consumer.name();
  }

  @Override
  public int maxBatch() {
    return maxBatch;
  }

  @Override
  public List<Outcome> consume(List<Message> messages) {
    return consume(messages, ConsumeInterceptor.NONE);
  }

  @Override
  public List<Outcome> consume(List<Message> messages, ConsumeInterceptor interceptor) {
    return maxBatch == 1
        ? List.of(consumer.consume(messages.get(0), interceptor))
        : consumer.consumeInOrder(messages, interceptor);
  }

  @Override
  public ConsumeMode inOrderBatchesOf(int maxMessages) {
    if (maxMessages < 1) {
      throw new InvalidConfigurationException("maxBatch must be >= 1, was " + maxMessages);
    }
    // As ConsumeMode.single: a grouped mode keeps its size, the single one takes the loop's.
    return maxBatch != 1 || maxMessages == 1 ? this : new ConsumerMode(consumer, maxMessages);
  }

  @Override
  public ConsumeMode batchesOf(int maxMessages) {
    if (maxMessages < 1) {
      throw new InvalidConfigurationException("maxBatch must be >= 1, was " + maxMessages);
    }
    return this; // each delivery is claimed and completed alone: no unordered grouping
  }
}
