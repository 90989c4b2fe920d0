package dev.archlab.inbox.bench;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The Kafka run's topic chores on the broker: filling a topic, reading its offsets. */
final class KafkaTopics {

  private KafkaTopics() {}

  /** Sends {@code n} records with unique ids, round-robin over the partitions, and checks them. */
  static void fill(KafkaBroker broker, String topic, int n) throws Exception {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    byte[] payload = "{\"amount\":42,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < n; i++) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(topic, i % KafkaRun.PARTITIONS, null, null, payload);
        r.headers().add(KafkaRun.ID_HEADER, (topic + "-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
    long end = 0;
    for (long offset : endOffsets(broker, topic).values()) {
      end += offset;
    }
    if (end != n) {
      throw new IllegalStateException(topic + " holds " + end + " records, expected " + n);
    }
  }

  /** The sum of the group's committed offsets on {@code topic}. */
  static long committed(KafkaBroker broker, String group, String topic) throws Exception {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(60, TimeUnit.SECONDS);
      long sum = 0;
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
        if (e.getValue() != null && e.getKey().topic().equals(topic)) {
          sum += e.getValue().offset();
        }
      }
      return sum;
    }
  }

  private static Map<TopicPartition, Long> endOffsets(KafkaBroker broker, String topic)
      throws Exception {
    Map<TopicPartition, OffsetSpec> query = new HashMap<>();
    for (int p = 0; p < KafkaRun.PARTITIONS; p++) {
      query.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    try (Admin admin = broker.admin()) {
      admin
          .listOffsets(query)
          .all()
          .get(60, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp, info.offset()));
    }
    return out;
  }
}
