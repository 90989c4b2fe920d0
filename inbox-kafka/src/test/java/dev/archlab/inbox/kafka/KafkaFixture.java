package dev.archlab.inbox.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Topics, producing, reading and committed offsets on the test broker, for one test. */
final class KafkaFixture implements AutoCloseable {

  final KafkaBroker broker = KafkaBroker.get();
  final String topic;
  final String group;
  final int partitions;
  private final KafkaProducer<byte[], byte[]> producer;

  KafkaFixture(String name, int partitions) {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    this.topic = name + "-" + suffix;
    this.group = "group-" + name + "-" + suffix;
    this.partitions = partitions;
    broker.createTopics(partitions, topic, topic + ".DLT");
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrap(),
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
  }

  Map<String, Object> consumerProps() {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    return p;
  }

  /** Sends a record to {@code partition}; a null id sends no id header. Returns its offset. */
  long send(int partition, String id, String payload) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(
            topic, partition, null, null, payload.getBytes(StandardCharsets.UTF_8));
    if (id != null) {
      r.headers().add(KafkaIds.DEFAULT_HEADER, id.getBytes(StandardCharsets.UTF_8));
    }
    try {
      RecordMetadata m = producer.send(r).get(60, TimeUnit.SECONDS);
      return m.offset();
    } catch (Exception e) {
      throw new IllegalStateException("send failed", e);
    }
  }

  /** The committed offset of each partition (absent if none). */
  Map<Integer, Long> committed() {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> m =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(60, TimeUnit.SECONDS);
      Map<Integer, Long> out = new HashMap<>();
      m.forEach(
          (tp, o) -> {
            if (o != null && tp.topic().equals(topic)) {
              out.put(tp.partition(), o.offset());
            }
          });
      return out;
    } catch (Exception e) {
      throw new IllegalStateException("could not read committed offsets", e);
    }
  }

  /** The end offset of each partition of the topic. */
  Map<Integer, Long> endOffsets() {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetSpec> q = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        q.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<Integer, Long> out = new HashMap<>();
      admin
          .listOffsets(q)
          .all()
          .get(60, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
      return out;
    } catch (Exception e) {
      throw new IllegalStateException("could not read end offsets", e);
    }
  }

  boolean allCommitted() {
    Map<Integer, Long> end = endOffsets();
    Map<Integer, Long> committed = committed();
    for (Map.Entry<Integer, Long> e : end.entrySet()) {
      if (e.getValue() > 0 && !e.getValue().equals(committed.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** Every record on the dead-letter topic, read from the start to its end. */
  List<ConsumerRecord<byte[], byte[]>> deadLetters() {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (var info : c.partitionsFor(topic + ".DLT")) {
        tps.add(new TopicPartition(info.topic(), info.partition()));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      while (true) {
        boolean done = true;
        for (TopicPartition tp : tps) {
          if (c.position(tp) < end.get(tp)) {
            done = false;
          }
        }
        if (done) {
          return out;
        }
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
  }
}
