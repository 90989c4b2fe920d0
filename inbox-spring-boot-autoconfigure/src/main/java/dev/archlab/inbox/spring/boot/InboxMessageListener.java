package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.BrokerDecision;
import dev.archlab.inbox.broker.MessageIdSource;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.DelegatingMessageListener;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * Wraps a {@code @KafkaListener}'s record listener so that each record runs through an inbox
 * consumer: the listener runs only for a message id not yet DONE, at most once to completion. The
 * shared {@link BrokerDecision} decides; this class translates it for Spring Kafka's container:
 * acknowledge (APPLIED, DUPLICATE) returns normally (the container commits the offset); redeliver
 * (FAILED, IN_FLIGHT) throws {@link RedeliverRecordException} (the error handler redelivers the
 * record); dead-letter (DEAD, a record without a valid message id, a payload mismatch) throws
 * {@link DeadLetterRecordException} (the error handler publishes the record to the dead-letter
 * topic, then the offset passes it). Any other error of the consume call (a store error) is thrown
 * on unchanged, for the container's error handler.
 *
 * <p>The container sees the wrapped listener's type through {@link DelegatingMessageListener} and
 * calls the matching {@code onMessage}; each is forwarded unchanged.
 */
final class InboxMessageListener
    implements MessageListener<Object, Object>,
        DelegatingMessageListener<MessageListener<Object, Object>> {

  private final String consumerName;
  private final MessageListener<Object, Object> delegate;
  private final KafkaListenerConsumer consumer;
  private final MessageIdSource<ConsumerRecord<?, ?>> ids;

  InboxMessageListener(
      String consumerName,
      MessageListener<Object, Object> delegate,
      KafkaListenerConsumer consumer,
      MessageIdSource<ConsumerRecord<?, ?>> ids) {
    this.consumerName = Objects.requireNonNull(consumerName, "consumerName");
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.ids = Objects.requireNonNull(ids, "ids");
  }

  @Override
  public MessageListener<Object, Object> getDelegate() {
    return delegate;
  }

  @Override
  public void onMessage(ConsumerRecord<Object, Object> data) {
    consume(data, () -> delegate.onMessage(data));
  }

  @Override
  public void onMessage(ConsumerRecord<Object, Object> data, @Nullable Acknowledgment ack) {
    consume(data, () -> delegate.onMessage(data, ack));
  }

  @Override
  public void onMessage(ConsumerRecord<Object, Object> data, @Nullable Consumer<?, ?> kafka) {
    consume(data, () -> delegate.onMessage(data, kafka));
  }

  @Override
  public void onMessage(
      ConsumerRecord<Object, Object> data,
      @Nullable Acknowledgment ack,
      @Nullable Consumer<?, ?> kafka) {
    consume(data, () -> delegate.onMessage(data, ack, kafka));
  }

  private void consume(ConsumerRecord<Object, Object> record, Runnable listener) {
    MessageIdSource.Identified identified =
        ids.identify(
            record,
            id -> new Message(id, record.topic(), payloadOf(record.value()), headers(record)));
    Message message = identified.message();
    if (message == null) {
      throw new DeadLetterRecordException(
          where(record) + ": " + identified.rejected().reason(), null);
    }
    Outcome outcome;
    try {
      outcome = consumer.consume(message, () -> unwrapped(listener));
    } catch (RuntimeException e) {
      BrokerDecision failed = BrokerDecision.ofFailedCall(e);
      if (!failed.finishes()) {
        throw e; // a store error: the container's error handler decides, as for any listener
      }
      throw new DeadLetterRecordException(where(record) + ": " + failed.reason(), e);
    }
    BrokerDecision decision = BrokerDecision.of(outcome);
    switch (decision.action()) {
      case ACKNOWLEDGE -> {
        // Done: the container commits past this record.
      }
      case DEAD_LETTER ->
          throw new DeadLetterRecordException(
              where(record)
                  + ": message '"
                  + message.id()
                  + "' is "
                  + outcome.status()
                  + " after "
                  + decision.attempts()
                  + " attempt(s): "
                  + decision.reason(),
              outcome.error());
      case REDELIVER_WHEN_RELEASED, REDELIVER_FOR_RETRY, REDELIVER_AFTER_ERROR ->
          throw new RedeliverRecordException(
              where(record)
                  + ": message '"
                  + message.id()
                  + "' is "
                  + outcome.status()
                  + ", redelivered after "
                  + decision.delay()
                  + cause(outcome),
              decision.delay(),
              outcome.error());
    }
  }

  // The listener adapter wraps what the listener threw; the inbox records the listener's own
  // exception as the attempt's error.
  private static void unwrapped(Runnable listener) throws Exception {
    try {
      listener.run();
    } catch (ListenerExecutionFailedException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  // Only raw and text values have bytes to fingerprint; any other value type is stored without.
  /** The record's headers as text (a tracing observation reads {@code traceparent} there). */
  private static Map<String, String> headers(ConsumerRecord<Object, Object> record) {
    Map<String, String> headers = new HashMap<>();
    for (Header h : record.headers()) {
      if (h.value() != null) {
        headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return headers;
  }

  private static byte[] payloadOf(@Nullable Object value) {
    if (value instanceof byte[] bytes) {
      return bytes;
    }
    if (value instanceof String text) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    return new byte[0];
  }

  private String where(ConsumerRecord<?, ?> record) {
    return "inbox consumer '"
        + consumerName
        + "', record "
        + record.topic()
        + "-"
        + record.partition()
        + "@"
        + record.offset();
  }

  private static String cause(Outcome outcome) {
    return outcome.error() == null ? "" : ": " + outcome.error();
  }
}
