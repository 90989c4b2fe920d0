package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.kafka.MessageIdSource;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/** The message id of a Spring Kafka record, from {@code inbox.kafka.listeners.<id>.message-id}. */
final class KafkaMessageIds {

  private KafkaMessageIds() {}

  /**
   * The id source a listener's settings name. Header and offset ids are the Kafka adapter's own
   * {@link MessageIdSource}s, so an id means the same with either adapter.
   */
  static Function<ConsumerRecord<?, ?>, @Nullable String> of(
      InboxProperties.KafkaListener settings) {
    return switch (settings.getMessageId()) {
      case HEADER -> adapterSource(MessageIdSource.header(settings.getMessageIdHeader()));
      case TOPIC_PARTITION_OFFSET -> adapterSource(MessageIdSource.topicPartitionOffset());
      case KEY -> KafkaMessageIds::key;
    };
  }

  // The adapter's sources take raw records but read only headers and coordinates, never the
  // deserialized key or value, so they apply to records of any key and value type.
  @SuppressWarnings("unchecked")
  private static Function<ConsumerRecord<?, ?>, @Nullable String> adapterSource(
      MessageIdSource source) {
    return record -> source.idOf((ConsumerRecord<byte[], byte[]>) record);
  }

  private static @Nullable String key(ConsumerRecord<?, ?> record) {
    Object key = record.key();
    if (key instanceof String text) {
      return text;
    }
    if (key instanceof byte[] bytes) {
      return Message.idFromUtf8(bytes);
    }
    return null;
  }
}
