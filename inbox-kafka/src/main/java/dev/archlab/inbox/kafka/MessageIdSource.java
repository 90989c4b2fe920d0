package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.Message;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Where a record's message id comes from. The id must be made by the producer and repeat on every
 * redelivery and on every producer retry; a record without one goes to the dead-letter topic.
 */
@FunctionalInterface
public interface MessageIdSource {

  /** The header that {@link #defaults()} reads. */
  String DEFAULT_HEADER = "message-id";

  /**
   * The id of {@code record}, or null if it has none.
   *
   * @throws InvalidMessageIdException if the record carries an id that is not valid
   */
  String idOf(ConsumerRecord<byte[], byte[]> record);

  /** The last {@value #DEFAULT_HEADER} header, decoded as strict UTF-8. */
  static MessageIdSource defaults() {
    return header(DEFAULT_HEADER);
  }

  /** The last header called {@code name}, decoded as strict UTF-8 ({@link Message#idFromUtf8}). */
  static MessageIdSource header(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("header name must not be blank");
    }
    return record -> {
      Header h = record.headers().lastHeader(name);
      return h == null || h.value() == null ? null : Message.idFromUtf8(h.value());
    };
  }

  /**
   * {@code topic-partition-offset}. Opt in only if the producer never retries and the topic is
   * never re-written: a producer retry gets a new offset, so offsets do not dedupe it.
   */
  static MessageIdSource topicPartitionOffset() {
    return record -> record.topic() + "-" + record.partition() + "-" + record.offset();
  }
}
