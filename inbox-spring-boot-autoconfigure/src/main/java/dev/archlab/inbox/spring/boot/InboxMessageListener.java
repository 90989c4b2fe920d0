package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.PayloadMismatchException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.DelegatingMessageListener;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * Wraps a {@code @KafkaListener}'s record listener so that each record runs through an inbox
 * consumer: the listener runs only for a message id not yet DONE, at most once to completion.
 * APPLIED and DUPLICATE return normally (the container commits the offset); FAILED and IN_FLIGHT
 * throw {@link RedeliverRecordException} (the error handler redelivers the record); DEAD, a record
 * without a valid message id and a payload mismatch throw {@link DeadLetterRecordException} (the
 * error handler publishes the record to the dead-letter topic, then the offset passes it).
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
  private final Function<ConsumerRecord<?, ?>, @Nullable String> ids;

  InboxMessageListener(
      String consumerName,
      MessageListener<Object, Object> delegate,
      KafkaListenerConsumer consumer,
      Function<ConsumerRecord<?, ?>, @Nullable String> ids) {
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
    Message message = messageOf(record);
    Outcome outcome;
    try {
      outcome = consumer.consume(message, () -> unwrapped(listener));
    } catch (PayloadMismatchException e) {
      throw new DeadLetterRecordException(where(record) + ": " + e.getMessage(), e);
    }
    switch (outcome.status()) {
      case APPLIED, DUPLICATE -> {
        // Done: the container commits past this record.
      }
      case DEAD ->
          throw new DeadLetterRecordException(
              where(record)
                  + ": message '"
                  + message.id()
                  + "' is DEAD after "
                  + outcome.attempts()
                  + " attempt(s)"
                  + cause(outcome),
              outcome.error());
      case FAILED, IN_FLIGHT ->
          throw new RedeliverRecordException(
              where(record)
                  + ": message '"
                  + message.id()
                  + "' is "
                  + outcome.status()
                  + ", redelivered after "
                  + outcome.retryAfter()
                  + cause(outcome),
              outcome.retryAfter(),
              outcome.error());
    }
  }

  private Message messageOf(ConsumerRecord<Object, Object> record) {
    try {
      String id = ids.apply(record);
      if (id == null) {
        throw new DeadLetterRecordException(where(record) + ": the record has no message id", null);
      }
      return Message.of(id, record.topic(), payloadOf(record.value()));
    } catch (InvalidMessageIdException e) {
      throw new DeadLetterRecordException(where(record) + ": " + e.getMessage(), e);
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
