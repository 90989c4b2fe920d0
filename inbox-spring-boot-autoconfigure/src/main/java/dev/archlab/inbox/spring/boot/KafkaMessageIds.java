package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.broker.MessageIdSource;
import dev.archlab.inbox.kafka.KafkaIds;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/** The message id of a Spring Kafka record, from {@code inbox.kafka.listeners.<id>.message-id}. */
final class KafkaMessageIds {

  private KafkaMessageIds() {}

  /**
   * The id source a listener's settings name. Header and offset ids are the Kafka adapter's own
   * sources ({@link KafkaIds}), so an id means the same with either adapter.
   */
  static MessageIdSource<ConsumerRecord<?, ?>> of(InboxProperties.KafkaListener settings) {
    return switch (settings.getMessageId()) {
      case HEADER -> KafkaIds.header(settings.getMessageIdHeader());
      case TOPIC_PARTITION_OFFSET -> KafkaIds.topicPartitionOffset();
      case KEY -> KafkaMessageIds::key;
    };
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
