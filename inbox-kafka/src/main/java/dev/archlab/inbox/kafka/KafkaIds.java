package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.broker.MessageIdSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The message-id sources of Kafka records ({@link KafkaInboxLoop.Builder#messageIds}). They read
 * headers and coordinates only, never the key or value, so they serve records of any key and value
 * type (the Spring Boot starter's listeners use them too). The decoding and the checks are the
 * shared {@link MessageIdSource#header}'s.
 */
public final class KafkaIds {

  /** The header that {@link #defaults()} reads. */
  public static final String DEFAULT_HEADER = "message-id";

  private KafkaIds() {}

  /**
   * The last {@value #DEFAULT_HEADER} header, decoded as strict UTF-8.
   *
   * @return the source
   */
  public static MessageIdSource<ConsumerRecord<?, ?>> defaults() {
    return header(DEFAULT_HEADER);
  }

  /**
   * The last header called {@code name}, decoded as strict UTF-8 ({@link Message#idFromUtf8}).
   *
   * @param name the header's name
   * @return the source
   * @throws InvalidConfigurationException if {@code name} is blank
   */
  public static MessageIdSource<ConsumerRecord<?, ?>> header(String name) {
    return MessageIdSource.header(
        name,
        (record, header) -> {
          Header h = record.headers().lastHeader(header);
          return h == null ? null : h.value();
        });
  }

  /**
   * {@code topic-partition-offset}. Opt in only if the producer never retries and the topic is
   * never re-written: a producer retry gets a new offset, so offsets do not dedupe it.
   *
   * @return the source
   */
  public static MessageIdSource<ConsumerRecord<?, ?>> topicPartitionOffset() {
    return record -> record.topic() + "-" + record.partition() + "-" + record.offset();
  }
}
