package dev.archlab.inbox.kafka;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.BatchConsumer;
import dev.archlab.inbox.jdbc.OneCommitConsumer;
import java.util.List;
import java.util.Objects;

/**
 * Which Inbox consumer runs the records: per message ({@link IdempotentConsumer}), one commit per
 * message ({@link OneCommitConsumer}) or the records of one poll and partition as one {@link
 * BatchConsumer} call. The loop only translates; the state machine stays in those consumers.
 */
public interface ConsumeMode {

  /** The Inbox consumer name (written into the dead-letter headers). */
  String consumerName();

  /** Most messages handed to one {@link #consume} call. */
  int maxBatch();

  /**
   * One outcome per message, in order.
   *
   * @param messages 1 to {@link #maxBatch()} messages of one partition, in offset order
   */
  List<Outcome> consume(List<Message> messages);

  /** Each record through {@link IdempotentConsumer#consume}. */
  static ConsumeMode perMessage(IdempotentConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return single(consumer.name(), consumer::consume);
  }

  /** Each record through {@link OneCommitConsumer#consume}. */
  static ConsumeMode oneCommit(OneCommitConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return single(consumer.name(), consumer::consume);
  }

  /**
   * The records of one poll and partition (up to {@code maxBatch}) through one {@link
   * BatchConsumer#consume} call. A record that fails makes its partition seek back to it; the
   * records after it that applied come back as DUPLICATE.
   */
  static ConsumeMode batch(BatchConsumer consumer, String consumerName, int maxBatch) {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(consumerName, "consumerName");
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
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

  private static ConsumeMode single(
      String name, java.util.function.Function<Message, Outcome> consume) {
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
