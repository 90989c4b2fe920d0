package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Which Inbox consumer a broker adapter ({@code inbox-kafka}, {@code inbox-rabbitmq}) runs its
 * messages through: per message ({@link IdempotentConsumer}), one commit per message ({@link
 * OneCommitConsumer}) or up to {@link #maxBatch()} messages as one {@link BatchConsumer} call (a
 * poll's records of one Kafka partition; the deliveries waiting on one RabbitMQ channel). The
 * adapters only translate broker terms; the state machine stays in those consumers.
 */
public interface ConsumeMode {

  /**
   * The Inbox consumer name (written into the dead-letter headers).
   *
   * @return the consumer's name
   */
  String consumerName();

  /**
   * Most deliveries handed to one {@link #consume} call.
   *
   * @return 1 for the single-message modes, the batch size otherwise
   */
  int maxBatch();

  /**
   * Consumes the messages.
   *
   * @param messages 1 to {@link #maxBatch()} messages, in delivery order (offset order for a Kafka
   *     partition)
   * @return one outcome per message, in the same order, except for a mode made by {@link
   *     #inOrderBatchesOf}: its outcomes cover the messages up to and including the first that did
   *     not finish (IN_FLIGHT or FAILED), and the messages after it were not consumed
   */
  List<Outcome> consume(List<Message> messages);

  /**
   * This mode as a loop that must keep delivery order (a Kafka partition) runs it when it may hand
   * over up to {@code maxMessages} messages per call, nothing consumed after the first that does
   * not finish. The one-commit mode becomes one-commit batches ({@link
   * OneCommitConsumer#consumeInOrder}: one transaction for the messages); the per-message mode
   * claims the new ids together, then runs and completes them one by one ({@link
   * IdempotentConsumer#consumeInOrder}); the batch mode keeps its own {@link #maxBatch()}.
   *
   * @param maxMessages most messages per call, at least 1; 1 returns this mode
   * @return the mode to run
   * @throws InvalidConfigurationException if {@code maxMessages} is below 1
   */
  default ConsumeMode inOrderBatchesOf(int maxMessages) {
    requireBatchSize(maxMessages);
    return this;
  }

  /**
   * This mode as a loop that need not keep delivery order across messages (a RabbitMQ queue, where
   * a retried message goes round the retry queue anyway) runs it when it may hand over up to {@code
   * maxMessages} messages per call. The one-commit mode becomes one-commit batches ({@link
   * OneCommitConsumer#consumeBatch}), every message answered; the other modes return themselves.
   *
   * @param maxMessages most messages per call, at least 1; 1 returns this mode
   * @return the mode to run
   * @throws InvalidConfigurationException if {@code maxMessages} is below 1
   */
  default ConsumeMode batchesOf(int maxMessages) {
    requireBatchSize(maxMessages);
    return this;
  }

  /**
   * Each delivery through {@link IdempotentConsumer#consume}.
   *
   * @param consumer the consumer
   * @return the mode
   */
  static ConsumeMode perMessage(IdempotentConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return groupable(consumer.name(), consumer::consume, consumer::consumeInOrder, null);
  }

  /**
   * Each delivery through {@link OneCommitConsumer#consume}: the business write and DONE in one
   * transaction.
   *
   * @param consumer the consumer
   * @return the mode
   */
  static ConsumeMode oneCommit(OneCommitConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return groupable(
        consumer.name(), consumer::consume, consumer::consumeInOrder, consumer::consumeBatch);
  }

  /**
   * Up to {@code maxBatch} deliveries that are waiting on one channel through one {@link
   * BatchConsumer#consume} call. A batch is never held back to fill up: what has arrived goes. The
   * consumer name (for the dead-letter headers) is the batch consumer's own.
   *
   * @param consumer the batch consumer
   * @param maxBatch most deliveries per call, at least 1; the prefetch must be at least this
   * @return the mode
   * @throws InvalidConfigurationException if {@code maxBatch} is below 1
   */
  static ConsumeMode batch(BatchConsumer consumer, int maxBatch) {
    Objects.requireNonNull(consumer, "consumer");
    requireBatchSize(maxBatch);
    return of(consumer.name(), maxBatch, consumer::consume);
  }

  private static void requireBatchSize(int maxBatch) {
    if (maxBatch < 1) {
      throw new InvalidConfigurationException("maxBatch must be >= 1, was " + maxBatch);
    }
  }

  private static ConsumeMode of(
      String name, int maxBatch, Function<List<Message>, List<Outcome>> consume) {
    return new ConsumeMode() {
      @Override
      public String consumerName() {
        return name;
      }

      @Override
      public int maxBatch() {
        return maxBatch;
      }

      @Override
      public List<Outcome> consume(List<Message> messages) {
        return consume.apply(messages);
      }
    };
  }

  /**
   * A mode of one message per call that groups when a loop allows it: {@code inOrder} for {@link
   * #inOrderBatchesOf}, {@code unordered} for {@link #batchesOf} (null: it does not group there).
   */
  private static ConsumeMode groupable(
      String name,
      Function<Message, Outcome> one,
      Function<List<Message>, List<Outcome>> inOrder,
      Function<List<Message>, List<Outcome>> unordered) {
    return new ConsumeMode() {
      @Override
      public String consumerName() {
        return name;
      }

      @Override
      public int maxBatch() {
        return 1;
      }

      @Override
      public List<Outcome> consume(List<Message> messages) {
        return List.of(one.apply(messages.get(0)));
      }

      @Override
      public ConsumeMode inOrderBatchesOf(int maxMessages) {
        requireBatchSize(maxMessages);
        return maxMessages == 1 ? this : of(name, maxMessages, inOrder);
      }

      @Override
      public ConsumeMode batchesOf(int maxMessages) {
        requireBatchSize(maxMessages);
        return maxMessages == 1 || unordered == null ? this : of(name, maxMessages, unordered);
      }
    };
  }
}
