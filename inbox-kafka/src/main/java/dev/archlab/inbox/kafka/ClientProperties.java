package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.broker.ConsumeMode;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka client settings the loop relies on: a consumer group, no auto-commit, and a dead-letter
 * producer that is idempotent and waits for all replicas. Refuses settings that weaken them and
 * fixes the rest in place. Also the loop's other settings checks and its worker threads.
 */
final class ClientProperties {
  private ClientProperties() {}

  /**
   * Checks and completes the consumer's and the dead-letter producer's properties in place.
   *
   * @throws InvalidConfigurationException if no {@code group.id}, no {@code bootstrap.servers},
   *     auto-commit on, or the producer's idempotence or acks weakened
   */
  static void makeSafe(Map<String, Object> consumerProps, Map<String, Object> producerProps) {
    Object group = consumerProps.get(ConsumerConfig.GROUP_ID_CONFIG);
    if (group == null || group.toString().isBlank()) {
      throw new InvalidConfigurationException(
          "group.id is required: offsets are committed for a consumer group");
    }
    Object servers = consumerProps.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
    if (servers == null || servers.toString().isBlank()) {
      throw new InvalidConfigurationException("bootstrap.servers is required");
    }
    Object auto = consumerProps.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
    if (auto != null && !"false".equalsIgnoreCase(auto.toString())) {
      throw new InvalidConfigurationException(
          "enable.auto.commit must be false, was "
              + auto
              + ": auto-commit would commit offsets past records that are not finished");
    }
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumerProps.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
    consumerProps.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
    Object idem = producerProps.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
    if (idem != null && !"true".equalsIgnoreCase(idem.toString())) {
      throw new InvalidConfigurationException(
          "enable.idempotence must stay true for the dead-letter producer, was " + idem);
    }
    Object acks = producerProps.get(ProducerConfig.ACKS_CONFIG);
    if (acks != null && !"all".equals(acks.toString()) && !"-1".equals(acks.toString())) {
      throw new InvalidConfigurationException(
          "acks must stay 'all' for the dead-letter producer, was " + acks);
    }
    producerProps.putIfAbsent(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
    producerProps.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
    producerProps.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
  }

  /**
   * The duration, if positive.
   *
   * @throws InvalidConfigurationException naming the setting if it is zero or negative
   */
  static Duration positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new InvalidConfigurationException(name + " must be positive, was " + d);
    }
    return d;
  }

  /** Daemon threads named after the loop's consumer. */
  static ThreadFactory workerThreads(ConsumeMode mode) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "inbox-kafka-" + mode.consumerName() + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
