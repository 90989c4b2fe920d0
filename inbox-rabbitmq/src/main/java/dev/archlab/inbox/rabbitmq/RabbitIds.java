package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.broker.MessageIdSource;
import java.util.Map;

/**
 * The message-id sources of RabbitMQ deliveries ({@link RabbitInboxConsumer.Builder#messageIds}).
 * Only reading the AMQP properties is RabbitMQ's; the decoding and the checks are the shared {@link
 * MessageIdSource#header}'s.
 */
public final class RabbitIds {

  private RabbitIds() {}

  /**
   * The AMQP {@code message_id} property, the default.
   *
   * @return the source
   */
  public static MessageIdSource<Delivery> messageIdProperty() {
    return d -> d.getProperties() == null ? null : d.getProperties().getMessageId();
  }

  /**
   * A header holding a string (an AMQP long string, decoded as strict UTF-8 with {@link
   * Message#idFromUtf8}, or a Java string); a header of another type is an invalid id.
   *
   * @param name the header's name
   * @return the source
   * @throws InvalidConfigurationException if {@code name} is blank
   */
  public static MessageIdSource<Delivery> header(String name) {
    return MessageIdSource.header(
        name,
        (d, header) -> {
          Map<String, Object> headers =
              d.getProperties() == null ? null : d.getProperties().getHeaders();
          Object v = headers == null ? null : headers.get(header);
          return v instanceof LongString s ? s.getBytes() : v;
        });
  }
}
