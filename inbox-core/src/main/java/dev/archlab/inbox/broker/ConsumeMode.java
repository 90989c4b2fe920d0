package dev.archlab.inbox.broker;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Which Inbox consumer a broker adapter ({@code inbox-kafka}, {@code inbox-rabbitmq}) runs its
 * deliveries through, the way a listener container takes a listener: the adapter owns polling,
 * offsets, acks and retries; the mode owns the state machine. Each consumer hands itself over as a
 * mode: {@link IdempotentConsumer#asMode()} (a lease per message), and in {@code inbox-jdbc} {@code
 * OneCommitConsumer.asMode()} (the effect and DONE in one transaction) and {@code
 * BatchConsumer.asMode(maxBatch)} (up to {@code maxBatch} deliveries in one call). A store module
 * with consumers of its own builds its modes with {@link #single} and {@link #batches}.
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
   * Consumes the messages as {@link #consume(List)} does, running {@code interceptor} around each
   * delivery the consumer runs alone (its claim, handler and completion), as {@link
   * ConsumeInterceptor} describes: a tracing adapter makes each delivery's span current while its
   * handler runs. {@link IdempotentConsumer#asMode()} intercepts every delivery, in a batch call
   * too. {@code inbox-jdbc}'s {@code OneCommitConsumer.asMode()} intercepts a call of one message
   * and, in a call of several (one transaction for all of them), runs each call of its handler
   * inside the interceptor's {@link ConsumeInterceptor#handlerScope} of that call's message. The
   * default, which modes made by {@link #single} and {@link #batches} get (and so {@code
   * BatchConsumer.asMode(maxBatch)}), intercepts a call of exactly one message and runs a call of
   * several without the interceptor: such a call hands its messages to the consumer as one unit
   * (one transaction). A mode whose consumer then calls a handler per message overrides this method
   * to run each call in the interceptor's handler scope, as {@code OneCommitConsumer}'s does;
   * {@code BatchConsumer}'s handler takes all the messages at once, so no single message's scope is
   * opened for it.
   *
   * @param messages as for {@link #consume(List)}
   * @param interceptor runs around each delivery; {@link ConsumeInterceptor#NONE} for none
   * @return as for {@link #consume(List)}
   * @throws NullPointerException if {@code interceptor} is null
   */
  default List<Outcome> consume(List<Message> messages, ConsumeInterceptor interceptor) {
    Objects.requireNonNull(interceptor, "interceptor");
    if (messages == null || messages.size() != 1 || interceptor == ConsumeInterceptor.NONE) {
      return consume(messages);
    }
    List<List<Outcome>> answered = new ArrayList<>(1);
    ConsumeInterceptor.around(
        interceptor,
        messages.get(0),
        () -> {
          List<Outcome> outcomes = consume(messages);
          answered.add(outcomes);
          return outcomes.isEmpty() ? null : outcomes.get(0);
        });
    // The mode's own answer is returned as it is, so a short answer stays visible to the loop.
    return answered.get(0);
  }

  /**
   * This mode as a loop that must keep delivery order (a Kafka partition) runs it when it may hand
   * over up to {@code maxMessages} messages per call, nothing consumed after the first that does
   * not finish. A single-message mode becomes its in-order batch call (the one-commit mode: one
   * transaction for the messages; the per-message mode: the new ids claimed together, then each run
   * and completed alone); a batch mode keeps its own {@link #maxBatch()}.
   *
   * @param maxMessages most messages per call, at least 1; 1 returns this mode
   * @return the mode to run
   * @throws InvalidConfigurationException if {@code maxMessages} is below 1
   */
  default ConsumeMode inOrderBatchesOf(int maxMessages) {
    Modes.requireBatchSize(maxMessages);
    return this;
  }

  /**
   * This mode as a loop that need not keep delivery order across messages (a RabbitMQ queue, where
   * a retried message goes round the retry queue anyway) runs it when it may hand over up to {@code
   * maxMessages} messages per call, every message answered. A single-message mode with an unordered
   * batch call (the one-commit mode) becomes that call; the other modes return themselves.
   *
   * @param maxMessages most messages per call, at least 1; 1 returns this mode
   * @return the mode to run
   * @throws InvalidConfigurationException if {@code maxMessages} is below 1
   */
  default ConsumeMode batchesOf(int maxMessages) {
    Modes.requireBatchSize(maxMessages);
    return this;
  }

  /**
   * A mode of up to {@code maxBatch} deliveries per call, every one answered; it keeps its size
   * whatever a loop allows.
   *
   * @param consumerName the consumer's name, for the dead-letter headers
   * @param maxBatch most deliveries per call, at least 1
   * @param consume the call, one outcome per message in order
   * @return the mode
   * @throws InvalidConfigurationException if {@code maxBatch} is below 1
   * @throws NullPointerException if {@code consumerName} or {@code consume} is null
   */
  static ConsumeMode batches(
      String consumerName, int maxBatch, Function<List<Message>, List<Outcome>> consume) {
    Objects.requireNonNull(consumerName, "consumerName");
    Objects.requireNonNull(consume, "consume");
    Modes.requireBatchSize(maxBatch);
    return new Modes.Fixed(consumerName, maxBatch, consume);
  }

  /**
   * A mode of one message per call that groups in an in-order loop ({@link #inOrderBatchesOf}) but
   * not in an unordered one.
   *
   * @param consumerName the consumer's name, for the dead-letter headers
   * @param one the call for one message
   * @param inOrder the in-order batch call: outcomes up to and including the first unfinished
   * @return the mode
   * @throws NullPointerException if an argument is null
   */
  static ConsumeMode single(
      String consumerName,
      Function<Message, Outcome> one,
      Function<List<Message>, List<Outcome>> inOrder) {
    return new Modes.Single(consumerName, one, inOrder, null);
  }

  /**
   * A mode of one message per call that groups in both kinds of loop.
   *
   * @param consumerName the consumer's name, for the dead-letter headers
   * @param one the call for one message
   * @param inOrder the in-order batch call: outcomes up to and including the first unfinished
   * @param unordered the unordered batch call: one outcome per message
   * @return the mode
   * @throws NullPointerException if an argument is null
   */
  static ConsumeMode single(
      String consumerName,
      Function<Message, Outcome> one,
      Function<List<Message>, List<Outcome>> inOrder,
      Function<List<Message>, List<Outcome>> unordered) {
    return new Modes.Single(
        consumerName, one, inOrder, Objects.requireNonNull(unordered, "unordered"));
  }
}
