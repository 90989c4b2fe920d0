package dev.archlab.inbox.outbox;

import dev.archlab.inbox.kafka.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Fresh topics on the shared test broker, and reading back everything a topic holds. */
final class KafkaTopics {

  private static final AtomicInteger NEXT = new AtomicInteger();

  private KafkaTopics() {}

  static KafkaBroker broker() {
    return KafkaBroker.get();
  }

  /** A new topic with {@code partitions} partitions, named after {@code prefix}. */
  static String create(String prefix, int partitions) {
    String topic = prefix + "-" + NEXT.incrementAndGet();
    broker().createTopics(partitions, topic);
    return topic;
  }

  /**
   * Every record {@code topic} holds now, each partition in offset order. Call it after the
   * publishing under test has returned (acknowledged): the end offsets read first are then final.
   */
  static List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker().bootstrap(),
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic, Duration.ofSeconds(30))
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      return out;
    }
  }

  static String header(ConsumerRecord<String, byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
  }
}
