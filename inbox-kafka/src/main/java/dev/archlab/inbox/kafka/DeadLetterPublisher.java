package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InvalidConfigurationException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;

/**
 * Publishes a record to its dead-letter topic with its key, value and headers, plus headers naming
 * where it came from and why, and returns only once the broker confirmed the write (the producer is
 * idempotent with {@code acks=all}). Thread-safe.
 */
final class DeadLetterPublisher {

  static final String ORIGINAL_TOPIC = "inbox-original-topic";
  static final String ORIGINAL_PARTITION = "inbox-original-partition";
  static final String ORIGINAL_OFFSET = "inbox-original-offset";
  static final String CONSUMER = "inbox-consumer";
  static final String ATTEMPTS = "inbox-attempts";
  static final String LAST_ERROR = "inbox-last-error";

  private static final int MAX_ERROR_CHARS = 2000;

  private final Producer<byte[], byte[]> producer;
  private final Function<String, String> topicOf;
  private final Duration timeout;

  DeadLetterPublisher(
      Producer<byte[], byte[]> producer, Function<String, String> topicOf, Duration timeout) {
    this.producer = producer;
    this.topicOf = topicOf;
    this.timeout = timeout;
  }

  String topicFor(String topic) {
    return topicOf.apply(topic);
  }

  /**
   * Checks that the dead-letter topic of each of {@code topics} exists and can be written.
   *
   * @throws InvalidConfigurationException naming the first that cannot
   */
  void requireWritable(List<String> topics) {
    for (String topic : topics) {
      String dlt = topicFor(topic);
      try {
        if (producer.partitionsFor(dlt).isEmpty()) {
          throw new InvalidConfigurationException(
              "dead-letter topic '" + dlt + "' has no partitions");
        }
      } catch (KafkaException e) {
        throw new InvalidConfigurationException(
            "dead-letter topic '" + dlt + "' for topic '" + topic + "' cannot be written: " + e);
      }
    }
  }

  /**
   * Publishes and waits for the broker's confirmation. {@code tracing} (a {@code traceparent} of
   * the publish's span) replaces the record's headers of the same names.
   *
   * @throws DeadLetterException if the write was not confirmed
   */
  void publish(
      ConsumerRecord<byte[], byte[]> record,
      String consumer,
      int attempts,
      String error,
      Map<String, String> tracing) {
    ProducerRecord<byte[], byte[]> out =
        new ProducerRecord<>(topicFor(record.topic()), record.key(), record.value());
    for (Header h : record.headers()) {
      out.headers().add(h);
    }
    out.headers()
        .add(ORIGINAL_TOPIC, utf8(record.topic()))
        .add(ORIGINAL_PARTITION, utf8(Integer.toString(record.partition())))
        .add(ORIGINAL_OFFSET, utf8(Long.toString(record.offset())))
        .add(CONSUMER, utf8(consumer))
        .add(ATTEMPTS, utf8(Integer.toString(attempts)))
        .add(LAST_ERROR, utf8(truncate(error == null ? "" : error)));
    tracing.forEach((name, value) -> out.headers().remove(name).add(name, utf8(value)));
    try {
      producer.send(out).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DeadLetterException(out.topic(), record, e);
    } catch (ExecutionException e) {
      throw new DeadLetterException(out.topic(), record, e.getCause());
    } catch (TimeoutException | RuntimeException e) {
      throw new DeadLetterException(out.topic(), record, e);
    }
  }

  private static String truncate(String s) {
    return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
