package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.Message;
import java.util.Map;
import java.util.Objects;

/**
 * Where a delivery's message id comes from. The id must be made by the producer and repeat on every
 * redelivery and every republish; a delivery without one goes to the dead-letter exchange (see
 * {@link MissingIdAction}).
 */
@FunctionalInterface
public interface MessageIdSource {

  /**
   * The id of {@code delivery}.
   *
   * @param delivery the delivery
   * @return its id, or null if it has none
   * @throws InvalidMessageIdException if the delivery carries an id that is not valid
   */
  String idOf(Delivery delivery);

  /**
   * The AMQP {@code message_id} property, the default.
   *
   * @return the source
   */
  static MessageIdSource messageIdProperty() {
    return d -> d.getProperties() == null ? null : d.getProperties().getMessageId();
  }

  /**
   * A header holding a string (an AMQP long string, decoded as strict UTF-8 with {@link
   * Message#idFromUtf8}, or a Java string).
   *
   * @param name the header's name
   * @return the source
   * @throws InvalidConfigurationException if {@code name} is blank
   */
  static MessageIdSource header(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new InvalidConfigurationException("header name must not be blank, was '" + name + "'");
    }
    return d -> {
      Map<String, Object> headers =
          d.getProperties() == null ? null : d.getProperties().getHeaders();
      Object v = headers == null ? null : headers.get(name);
      if (v == null) {
        return null;
      }
      if (v instanceof LongString s) {
        return Message.idFromUtf8(s.getBytes());
      }
      if (v instanceof String s) {
        return s;
      }
      throw new InvalidMessageIdException(
          "header '" + name + "' holds a " + v.getClass().getSimpleName() + ", not a string");
    };
  }
}
