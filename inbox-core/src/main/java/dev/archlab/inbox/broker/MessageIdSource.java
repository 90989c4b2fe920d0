package dev.archlab.inbox.broker;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.Message;
import java.util.Objects;
import java.util.function.Function;

/**
 * Where a delivery's message id comes from. The id must be made by the producer and repeat on every
 * redelivery and every producer retry or republish; a delivery without one can never be
 * deduplicated and is dead-lettered ({@link BrokerDecision#deadLetter}). Each adapter supplies only
 * how its broker's headers are read ({@link #header}); the decoding and the checks are these.
 *
 * @param <D> the broker's delivery type (a Kafka record, an AMQP delivery)
 */
@FunctionalInterface
public interface MessageIdSource<D> {

  /**
   * The id of {@code delivery}.
   *
   * @param delivery the delivery
   * @return its id, or null if it has none
   * @throws InvalidMessageIdException if the delivery carries an id that is not valid
   */
  String idOf(D delivery);

  /**
   * The delivery as a message, or why it cannot be one.
   *
   * @param delivery the delivery
   * @param toMessage makes the message from the delivery's id (the adapter adds topic, payload and
   *     headers)
   * @return the message, or a {@link BrokerDecision.Action#DEAD_LETTER} decision with the reason
   *     ("no message id", or "invalid message id: " and what is wrong with it)
   */
  default Identified identify(D delivery, Function<String, Message> toMessage) {
    try {
      String id = idOf(delivery);
      if (id == null) {
        return new Identified(null, BrokerDecision.deadLetter("no message id"));
      }
      return new Identified(toMessage.apply(id), null);
    } catch (InvalidMessageIdException e) {
      return new Identified(
          null, BrokerDecision.deadLetter("invalid message id: " + e.getMessage()));
    }
  }

  /**
   * The id in a header: raw bytes are decoded as strict UTF-8 ({@link Message#idFromUtf8}), a
   * string is taken as it is, a missing header is no id, any other value is an invalid id.
   *
   * @param <D> the delivery type
   * @param name the header's name
   * @param read reads the header's value from a delivery (the last one of that name where a broker
   *     allows several); null when it is absent or has no value
   * @return the source
   * @throws InvalidConfigurationException if {@code name} is blank
   * @throws NullPointerException if an argument is null
   */
  static <D> MessageIdSource<D> header(String name, HeaderReader<D> read) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(read, "read");
    if (name.isBlank()) {
      throw new InvalidConfigurationException("header name must not be blank, was '" + name + "'");
    }
    return delivery -> {
      Object value = read.value(delivery, name);
      if (value == null) {
        return null;
      }
      if (value instanceof byte[] bytes) {
        return Message.idFromUtf8(bytes);
      }
      if (value instanceof String text) {
        return text;
      }
      throw new InvalidMessageIdException(
          "header '" + name + "' holds a " + value.getClass().getSimpleName() + ", not a string");
    };
  }

  /**
   * Reads one header of a delivery, as the broker's client keeps it.
   *
   * @param <D> the delivery type
   */
  @FunctionalInterface
  interface HeaderReader<D> {
    /**
     * The header's value.
     *
     * @param delivery the delivery
     * @param name the header's name
     * @return its value as bytes or a string (another type is refused as an invalid id), or null
     *     when the header is absent or empty
     */
    Object value(D delivery, String name);
  }

  /**
   * A delivery made a message, or the decision for one that could not be.
   *
   * @param message the message; null when the delivery has no valid id
   * @param rejected the dead-letter decision when there is no message; otherwise null
   */
  record Identified(Message message, BrokerDecision rejected) {}
}
