package dev.archlab.inbox.outbox.kafka;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes outbox rows to Kafka: the row's destination is the topic, its key the record key (so
 * one key stays in one partition, in order), its payload the value, its headers the record's
 * headers plus the message id in the {@value #DEFAULT_ID_HEADER} header (where {@code
 * KafkaIds.defaults()} of inbox-kafka reads it; another name with {@link Builder#idHeader}). The id
 * header is added last, so it wins over a user header of the same name.
 *
 * <p>Guarantees: the producer is idempotent with {@code acks=all} (a configuration that weakens
 * either is refused), so retries inside the client neither duplicate nor reorder a partition's
 * records; a row is reported SENT only when its send future completed, i.e. when every in-sync
 * replica has it. A row whose topic does not exist (asked of the cluster with an admin client;
 * topics found are remembered for a minute), that is too large, or that cannot be serialised is
 * reported DEAD with the reason; any other failure is RETRY. Used by one relay thread at a time.
 */
public final class KafkaOutboxPublisher implements OutboxPublisher {

  /** The header that carries the message id by default (inbox-kafka's default id header). */
  public static final String DEFAULT_ID_HEADER = "message-id";

  /** How long a topic found on the cluster is taken to exist without asking again. */
  private static final long TOPIC_MEMORY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Producer<String, byte[]> producer;
  private final Admin admin;
  private final String idHeader;
  private final Duration topicCheckTimeout;
  private final Map<String, Long> topicsSeen = new ConcurrentHashMap<>();

  private KafkaOutboxPublisher(Builder b) {
    this.idHeader = b.idHeader;
    this.topicCheckTimeout = b.topicCheckTimeout;
    Map<String, Object> config = new HashMap<>(b.properties);
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
    Map<String, Object> adminConfig = new HashMap<>();
    for (Map.Entry<String, Object> e : config.entrySet()) {
      String k = e.getKey();
      if (k.startsWith("ssl.") || k.startsWith("sasl.") || k.equals("security.protocol")) {
        adminConfig.put(k, e.getValue());
      }
    }
    adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers);
    adminConfig.put(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) topicCheckTimeout.toMillis());
    adminConfig.put(
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) topicCheckTimeout.toMillis());
    this.producer = new KafkaProducer<>(config);
    this.admin = Admin.create(adminConfig);
  }

  /**
   * A builder for a publisher to the cluster at {@code bootstrapServers}.
   *
   * @param bootstrapServers the producer's {@code bootstrap.servers}
   * @return a builder
   */
  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  @Override
  public List<PublishResult> publish(List<OutboxRow> rows) {
    Set<String> missing = missingTopics(rows);
    PublishResult[] results = new PublishResult[rows.size()];
    List<Future<RecordMetadata>> futures = new ArrayList<>(rows.size());
    // A topic whose send failed for now (no metadata within max.block.ms): its later rows are not
    // sent this round, so none overtakes the failed one and the round is not blocked per row.
    Map<String, PublishResult> failedForNow = new HashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      OutboxRow row = rows.get(i);
      Future<RecordMetadata> future = null;
      if (missing.contains(row.destination())) {
        results[i] =
            PublishResult.dead(
                "unknown topic '" + row.destination() + "': it does not exist on the cluster");
      } else if (failedForNow.containsKey(row.destination())) {
        results[i] = failedForNow.get(row.destination());
      } else {
        try {
          future = producer.send(record(row));
        } catch (KafkaException e) {
          results[i] = classify(e);
          if (results[i].kind() == PublishResult.Kind.RETRY) {
            failedForNow.put(row.destination(), results[i]);
          }
        }
      }
      futures.add(future);
    }
    producer.flush();
    for (int i = 0; i < rows.size(); i++) {
      Future<RecordMetadata> future = futures.get(i);
      if (future == null) {
        continue;
      }
      try {
        future.get();
        results[i] = PublishResult.sent();
      } catch (ExecutionException e) {
        results[i] = classify(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        // The outcome is unknown: the relay's round rolls back and the rows stay PENDING.
        throw new InboxException("interrupted while waiting for Kafka's acknowledgements", e);
      }
    }
    return List.of(results);
  }

  private ProducerRecord<String, byte[]> record(OutboxRow row) {
    RecordHeaders headers = new RecordHeaders();
    for (Map.Entry<String, String> h : row.headers().entrySet()) {
      headers.add(h.getKey(), h.getValue().getBytes(StandardCharsets.UTF_8));
    }
    headers.add(idHeader, row.id().getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(row.destination(), null, row.key(), row.payload(), headers);
  }

  /** DEAD for what no retry can fix, RETRY for the rest. */
  private static PublishResult classify(Throwable t) {
    String reason = t.getClass().getSimpleName() + ": " + t.getMessage();
    if (t instanceof RecordTooLargeException
        || t instanceof RecordBatchTooLargeException
        || t instanceof InvalidTopicException
        || t instanceof SerializationException) {
      return PublishResult.dead(reason);
    }
    return PublishResult.retry(reason);
  }

  /** The destinations of {@code rows} the cluster says do not exist. */
  private Set<String> missingTopics(List<OutboxRow> rows) {
    long now = System.nanoTime();
    Set<String> toCheck = new HashSet<>();
    for (OutboxRow row : rows) {
      Long seen = topicsSeen.get(row.destination());
      if (seen == null || now - seen > TOPIC_MEMORY_NANOS) {
        toCheck.add(row.destination());
      }
    }
    Set<String> missing = new HashSet<>();
    if (toCheck.isEmpty()) {
      return missing;
    }
    var described = admin.describeTopics(toCheck).topicNameValues();
    for (String topic : toCheck) {
      try {
        described.get(topic).get(topicCheckTimeout.toMillis(), TimeUnit.MILLISECONDS);
        topicsSeen.put(topic, now);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException
            || e.getCause() instanceof InvalidTopicException) {
          missing.add(topic);
        }
        // Anything else (the cluster unreachable): let the send itself fail and be retried.
      } catch (TimeoutException e) {
        // As above: no answer is not "missing".
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InboxException("interrupted while checking Kafka topics", e);
      }
    }
    return missing;
  }

  /** Closes the producer (waiting up to 30 s for records in flight) and the admin client. */
  @Override
  public void close() {
    try {
      producer.close(Duration.ofSeconds(30));
    } finally {
      admin.close(Duration.ofSeconds(30));
    }
  }

  /**
   * Builds a {@link KafkaOutboxPublisher}. Defaults: id header {@value #DEFAULT_ID_HEADER}, topic
   * checks answered within 10 s, the producer's {@code max.block.ms} 10 s; any other producer
   * setting through {@link #property}.
   */
  public static final class Builder {
    private final String bootstrapServers;
    private final Map<String, Object> properties = new HashMap<>();
    private String idHeader = DEFAULT_ID_HEADER;
    private Duration topicCheckTimeout = Duration.ofSeconds(10);

    private Builder(String bootstrapServers) {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new InvalidConfigurationException("Kafka bootstrapServers must not be blank");
      }
      this.bootstrapServers = bootstrapServers;
    }

    /**
     * A producer setting (security, timeouts, compression, …).
     *
     * @param name the producer config name
     * @param value its value
     * @return this builder
     * @throws InvalidConfigurationException if it would weaken {@code acks=all} or idempotence, or
     *     names a serializer (the publisher's own are fixed)
     */
    public Builder property(String name, Object value) {
      Objects.requireNonNull(name, "name");
      String v = String.valueOf(value);
      if ((name.equals(ProducerConfig.ACKS_CONFIG) && !v.equals("all") && !v.equals("-1"))
          || (name.equals(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG) && !v.equals("true"))
          || name.equals(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG)
          || name.equals(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
        throw new InvalidConfigurationException(
            "the outbox's Kafka producer keeps acks=all, idempotence and its own serializers;"
                + " refused "
                + name
                + "="
                + v);
      }
      properties.put(name, value);
      return this;
    }

    /**
     * The header that carries each message's id.
     *
     * @param idHeader a non-blank header name; default {@value #DEFAULT_ID_HEADER}
     * @return this builder
     */
    public Builder idHeader(String idHeader) {
      if (idHeader == null || idHeader.isBlank()) {
        throw new InvalidConfigurationException("Kafka id header must not be blank");
      }
      this.idHeader = idHeader;
      return this;
    }

    /**
     * How long to wait for the cluster's answer on whether a topic exists.
     *
     * @param timeout 1 ms to 5 minutes; default 10 s
     * @return this builder
     */
    public Builder topicCheckTimeout(Duration timeout) {
      if (timeout == null
          || timeout.compareTo(Duration.ofMillis(1)) < 0
          || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new InvalidConfigurationException(
            "Kafka topicCheckTimeout must be between 1 ms and 5 minutes, was " + timeout);
      }
      this.topicCheckTimeout = timeout;
      return this;
    }

    /**
     * The publisher, connected lazily by the Kafka clients.
     *
     * @return a new publisher; close it (or the relay that owns it)
     */
    public KafkaOutboxPublisher build() {
      return new KafkaOutboxPublisher(this);
    }
  }
}
