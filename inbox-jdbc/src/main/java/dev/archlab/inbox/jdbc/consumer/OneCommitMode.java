package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.ConsumeMode;
import java.util.List;
import java.util.Objects;

/**
 * {@link OneCommitConsumer} as a {@link ConsumeMode}: one delivery per call, or, when a loop allows
 * several, one-commit batches (in order for a Kafka partition, unordered for a RabbitMQ channel). A
 * call of one delivery runs inside the interceptor's {@code intercept}; a batch call passes the
 * interceptor on, so that each handler call runs inside that message's handler scope.
 */
final class OneCommitMode implements ConsumeMode {

  private final OneCommitConsumer consumer;
  private final int maxBatch;
  private final boolean inOrder;

  OneCommitMode(OneCommitConsumer consumer, int maxBatch, boolean inOrder) {
    this.consumer = consumer;
    this.maxBatch = maxBatch;
    this.inOrder = inOrder;
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
    Objects.requireNonNull(interceptor, "interceptor");
    BatchInput.requireMessages(messages);
    if (messages.isEmpty()) {
      return List.of();
    }
    if (maxBatch == 1 || messages.size() == 1) {
      // A delivery alone has a turn of its own: the interceptor runs around all of it.
      Message message = messages.get(0);
      return List.of(
          ConsumeInterceptor.around(interceptor, message, () -> consumer.consume(message)));
    }
    return consumer.consumeBatch(messages, inOrder, interceptor);
  }

  @Override
  public ConsumeMode inOrderBatchesOf(int maxMessages) {
    return grouped(maxMessages, true);
  }

  @Override
  public ConsumeMode batchesOf(int maxMessages) {
    return grouped(maxMessages, false);
  }

  /**
   * As {@link ConsumeMode#single}: a grouped mode keeps its size, the single one takes the loop's.
   */
  private ConsumeMode grouped(int maxMessages, boolean ordered) {
    if (maxMessages < 1) {
      throw new InvalidConfigurationException("maxBatch must be >= 1, was " + maxMessages);
    }
    return maxBatch != 1 || maxMessages == 1
        ? this
        : new OneCommitMode(consumer, maxMessages, ordered);
  }
}
