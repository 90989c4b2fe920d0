package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.Outcome;
import java.util.function.Function;

/**
 * The inbox consumer a Kafka listener's records run through, with the listener invocation of the
 * current record as its handler. The invocation is handed over per thread because a container calls
 * its listener from its consumer threads and the handler runs on the thread that calls {@link
 * #consume}.
 *
 * <p>When the application has one transaction manager, the listener runs in a Spring transaction
 * that also writes DONE ({@link SpringTransactionalConsumer}); otherwise DONE is recorded after the
 * listener returned ({@link IdempotentConsumer}). Either way each call goes through the {@link
 * ConsumerObservation} when there is one (timed, and traced as a child of the container's listener
 * observation, or from the record's {@code traceparent} header).
 */
final class KafkaListenerConsumer {

  /** One call of the wrapped listener. */
  @FunctionalInterface
  interface Invocation {
    void run() throws Exception;
  }

  private final ThreadLocal<Invocation> current = new ThreadLocal<>();
  private final Function<Message, Outcome> consume;

  KafkaListenerConsumer(InboxConsumers consumers, String name) {
    MessageHandler handler = (message, attempt) -> current.get().run();
    if (consumers.hasTransactionManager()) {
      consume = consumers.transactional(name, handler)::consume;
    } else {
      // The transactional consumer observes its own calls; this one is observed here, alike.
      Function<Message, Outcome> idempotent = consumers.idempotent(name, handler)::consume;
      ConsumerObservation observation = consumers.observation();
      consume = observation == null ? idempotent : m -> observation.consume(name, m, idempotent);
    }
  }

  /** Consumes {@code message}, running {@code invocation} if the inbox lets the handler run. */
  Outcome consume(Message message, Invocation invocation) {
    current.set(invocation);
    try {
      return consume.apply(message);
    } finally {
      current.remove();
    }
  }
}
