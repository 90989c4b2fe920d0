package dev.archlab.inbox.chaos;

import dev.archlab.inbox.kafka.KafkaBroker;
import dev.archlab.inbox.testkit.Await;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** What the outbox chain test reads outside its processes: whole topics, and its class path. */
final class ChainTopics {

  private ChainTopics() {}

  /**
   * The {@code message-id} header of every record on {@code topic}, from the beginning to the end
   * offsets read at the start, in partition order (a record without the header counts as "").
   */
  static List<String> ids(KafkaBroker broker, String topic) {
    List<String> ids = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      c.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      c.assign(partitions);
      c.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = c.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(Await.LIMIT_SECONDS).toNanos();
      while (partitions.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end offsets " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            Header h = r.headers().lastHeader("message-id");
            ids.add(h == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
          }
        }
      }
    }
    return ids;
  }

  /** This module's test and main classes and its dependencies: the chain processes' class path. */
  static String testClassPath() {
    try {
      return Path.of("target", "test-classes").toAbsolutePath()
          + File.pathSeparator
          + Path.of("target", "classes").toAbsolutePath()
          + File.pathSeparator
          + Files.readString(Path.of("target", "test-classpath.txt")).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "target/test-classpath.txt is missing: run the tests through Maven", e);
    }
  }
}
