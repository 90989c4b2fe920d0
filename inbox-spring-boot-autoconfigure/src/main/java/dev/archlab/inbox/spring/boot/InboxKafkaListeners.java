package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InvalidConfigurationException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Makes the {@code @KafkaListener}s named under {@code inbox.kafka.listeners.<listener-id>.*}
 * idempotent: before their containers start, each one's record listener is wrapped to run through
 * an inbox consumer ({@link InboxMessageListener}), and its container gets an error handler that
 * publishes DEAD and id-less records to {@code <topic><dead-letter-suffix>} through Spring Kafka's
 * {@link DeadLetterPublishingRecoverer} (waiting for the broker's acknowledgement; the offset
 * passes the record only after that), and redelivers unfinished records for as long as the inbox
 * says so.
 *
 * <p>Startup fails, naming the property, when a configured listener id does not exist, is a batch
 * listener, acknowledges manually (a DUPLICATE never runs the listener, so it could never
 * acknowledge) or has already started, and when the application has no single {@link
 * KafkaOperations} bean for the dead letters.
 */
public final class InboxKafkaListeners implements SmartLifecycle {

  /**
   * Starts before Spring Kafka's listener containers ({@code
   * AbstractMessageListenerContainer.DEFAULT_PHASE}), so no record reaches an unwrapped listener.
   */
  static final int PHASE = AbstractMessageListenerContainer.DEFAULT_PHASE - 100;

  // Upper bound of one wait before redelivery: the wait blocks the container's consumer thread,
  // and a redelivery before the inbox's retry time is only answered IN_FLIGHT again.
  private static final Duration MAX_REDELIVERY_WAIT = Duration.ofSeconds(10);
  private static final long FALLBACK_REDELIVERY_WAIT_MS = 1000;

  private final InboxConsumers consumers;
  private final Map<String, InboxProperties.KafkaListener> listeners;
  private final Supplier<KafkaListenerEndpointRegistry> registry;
  private final Supplier<KafkaOperations<?, ?>> deadLetterTemplate;
  private boolean wrapped;
  private volatile boolean running;

  InboxKafkaListeners(
      InboxConsumers consumers,
      Map<String, InboxProperties.KafkaListener> listeners,
      Supplier<KafkaListenerEndpointRegistry> registry,
      Supplier<KafkaOperations<?, ?>> deadLetterTemplate) {
    this.consumers = Objects.requireNonNull(consumers, "consumers");
    this.listeners = Map.copyOf(listeners);
    this.registry = Objects.requireNonNull(registry, "registry");
    this.deadLetterTemplate = Objects.requireNonNull(deadLetterTemplate, "deadLetterTemplate");
  }

  @Override
  public synchronized void start() {
    // Once per context: a restarted context keeps its containers, already wrapped.
    if (!wrapped && !listeners.isEmpty()) {
      KafkaListenerEndpointRegistry containers = registry.get();
      if (containers == null) {
        throw new InvalidConfigurationException(
            "inbox.kafka.listeners: no Spring Kafka listener registry (is @EnableKafka on?)");
      }
      listeners.forEach((id, settings) -> wrap(containers, id, settings));
    }
    wrapped = true;
    running = true;
  }

  private void wrap(
      KafkaListenerEndpointRegistry containers, String id, InboxProperties.KafkaListener settings) {
    String property = "inbox.kafka.listeners." + id;
    MessageListenerContainer container = containers.getListenerContainer(id);
    if (!(container instanceof AbstractMessageListenerContainer<?, ?> listenerContainer)) {
      throw new InvalidConfigurationException(
          property + ": no @KafkaListener has the id '" + id + "' (give it @KafkaListener(id=…))");
    }
    if (listenerContainer.isRunning()) {
      throw new InvalidConfigurationException(
          property + ": the listener container started before the inbox could wrap it");
    }
    AckMode ackMode = listenerContainer.getContainerProperties().getAckMode();
    if (ackMode == AckMode.MANUAL || ackMode == AckMode.MANUAL_IMMEDIATE) {
      throw new InvalidConfigurationException(
          property + ": ack mode " + ackMode + " is not supported; let the container acknowledge");
    }
    Object listener = listenerContainer.getContainerProperties().getMessageListener();
    if (!(listener instanceof MessageListener<?, ?> recordListener)) {
      throw new InvalidConfigurationException(
          property + ": only record listeners are supported, not " + typeOf(listener));
    }
    String name = settings.getConsumer() == null ? id : settings.getConsumer();
    InboxMessageListener inbox;
    try {
      inbox =
          new InboxMessageListener(
              name,
              recordListenerOfObjects(recordListener),
              new KafkaListenerConsumer(consumers, name),
              KafkaMessageIds.of(settings));
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigurationException(property + ": " + e.getMessage());
    }
    listenerContainer.setupMessageListener(inbox);
    listenerContainer.setCommonErrorHandler(errorHandler(property, settings.getDeadLetterSuffix()));
  }

  private DefaultErrorHandler errorHandler(String property, String suffix) {
    if (suffix == null || suffix.isEmpty()) {
      throw new InvalidConfigurationException(
          property
              + ".dead-letter-suffix must not be empty: dead letters would go back to the topic");
    }
    KafkaOperations<?, ?> template = deadLetterTemplate.get();
    if (template == null) {
      throw new InvalidConfigurationException(
          property
              + ": dead letters need one KafkaTemplate bean (Spring Boot defines it with"
              + " spring.kafka.*)");
    }
    // Partition -1: the producer's partitioner places the record, so the dead-letter topic may
    // have fewer partitions than the topic.
    DeadLetterPublishingRecoverer deadLetters =
        new DeadLetterPublishingRecoverer(
            template, (record, e) -> new TopicPartition(record.topic() + suffix, -1));
    DefaultErrorHandler handler =
        new DefaultErrorHandler(
            deadLetters,
            new FixedBackOff(FALLBACK_REDELIVERY_WAIT_MS, FixedBackOff.UNLIMITED_ATTEMPTS));
    // Dead letters go out at once; everything else (unfinished records, a store outage, a lost
    // lease) is redelivered for as long as it takes: the inbox decides when a message is DEAD.
    handler.addNotRetryableExceptions(DeadLetterRecordException.class);
    handler.addRetryableExceptions(RedeliverRecordException.class);
    handler.setBackOffFunction(
        (record, e) -> {
          RedeliverRecordException redeliver = redeliveryIn(e);
          return redeliver == null
              ? null
              : new FixedBackOff(
                  waitMillis(redeliver.retryAfter()), FixedBackOff.UNLIMITED_ATTEMPTS);
        });
    return handler;
  }

  // The container hands the error handler the listener's exception wrapped in its own.
  private static RedeliverRecordException redeliveryIn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RedeliverRecordException redeliver) {
        return redeliver;
      }
    }
    return null;
  }

  private static long waitMillis(Duration retryAfter) {
    Duration wait =
        retryAfter.compareTo(MAX_REDELIVERY_WAIT) > 0 ? MAX_REDELIVERY_WAIT : retryAfter;
    return Math.max(0, wait.toMillis());
  }

  // The container hands the listener records of its own key and value types; the wrapper passes
  // them through unchanged, so viewing the listener as one of Objects is safe.
  @SuppressWarnings("unchecked")
  private static MessageListener<Object, Object> recordListenerOfObjects(
      MessageListener<?, ?> listener) {
    return (MessageListener<Object, Object>) listener;
  }

  private static String typeOf(Object listener) {
    return listener == null ? "none" : listener.getClass().getName();
  }

  @Override
  public void stop() {
    // Nothing to undo: the containers stop themselves and the consumers close with the context.
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
