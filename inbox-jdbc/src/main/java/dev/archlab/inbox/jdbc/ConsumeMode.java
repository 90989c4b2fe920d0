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
   * @return one outcome per message, in the same order
   */
  List<Outcome> consume(List<Message> messages);

  /**
   * Each delivery through {@link IdempotentConsumer#consume}.
   *
   * @param consumer the consumer
   * @return the mode
   */
  static ConsumeMode perMessage(IdempotentConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return single(consumer.name(), consumer::consume);
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
    return single(consumer.name(), consumer::consume);
  }

  /**
   * Up to {@code maxBatch} deliveries that are waiting on one channel through one {@link
   * BatchConsumer#consume} call. A batch is never held back to fill up: what has arrived goes.
   *
   * @param consumer the batch consumer
   * @param consumerName its name, as given to its builder
   * @param maxBatch most deliveries per call, at least 1; the prefetch must be at least this
   * @return the mode
   * @throws InvalidConfigurationException if {@code maxBatch} is below 1
   */
  static ConsumeMode batch(BatchConsumer consumer, String consumerName, int maxBatch) {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(consumerName, "consumerName");
    if (maxBatch < 1) {
      throw new InvalidConfigurationException("maxBatch must be >= 1, was " + maxBatch);
    }
    return new ConsumeMode() {
      @Override
      public String consumerName() {
        return consumerName;
      }

      @Override
      public int maxBatch() {
        return maxBatch;
      }

      @Override
      public List<Outcome> consume(List<Message> messages) {
        return consumer.consume(messages);
      }
    };
  }

  private static ConsumeMode single(String name, Function<Message, Outcome> consume) {
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
        return List.of(consume.apply(messages.get(0)));
      }
    };
  }
}
