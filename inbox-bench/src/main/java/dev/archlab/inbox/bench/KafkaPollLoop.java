package dev.archlab.inbox.bench;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The skeleton of the bench's hand-written Kafka loops: poll, write the poll's records, commit the
 * poll's offsets, until {@link #close()}. A crash between the writes and the offset commit writes
 * them again on redelivery: at least once.
 */
abstract class KafkaPollLoop implements KafkaBenchConsumer.Loop {

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;
  private volatile boolean closing;

  KafkaPollLoop(Map<String, Object> props, String topic) {
    this.consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.topic = topic;
  }

  /** Writes one poll's records (never empty). */
  abstract void write(ConsumerRecords<byte[], byte[]> records) throws SQLException;

  @Override
  public final void run() throws SQLException {
    try (consumer) {
      consumer.subscribe(List.of(topic));
      while (!closing) {
        ConsumerRecords<byte[], byte[]> records;
        try {
          records = consumer.poll(Duration.ofMillis(100));
        } catch (WakeupException e) {
          continue; // close() woke the poll
        }
        if (records.isEmpty()) {
          continue;
        }
        write(records);
        try {
          consumer.commitSync();
        } catch (WakeupException e) {
          // close() landed on the commit: its records come again to the next member, which
          // is what at-least-once means; the run is over either way.
        }
      }
    }
  }

  @Override
  public final void close() {
    closing = true;
    consumer.wakeup();
  }
}
