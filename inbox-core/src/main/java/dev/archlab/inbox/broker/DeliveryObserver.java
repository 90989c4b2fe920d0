package dev.archlab.inbox.broker;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Where a broker adapter ({@code KafkaInboxLoop}, {@code RabbitInboxConsumer}) reports each
 * delivery it takes, so that a tracing integration can follow it: from the producer's headers,
 * through the consume (current on the consuming thread while the handler runs), to the copy the
 * adapter publishes while settling it (a dead letter, a retry). The interface carries no tracing
 * library: {@code inbox-micrometer}'s {@code InboxObservations} implements it with Micrometer
 * Observations, which OpenTelemetry (or Brave) picks up through Micrometer Tracing's bridge. So the
 * adapters depend on nothing but {@code inbox-core}, and the names and tags live in one place.
 *
 * <p>What an adapter guarantees to an observer: {@link #received} once per delivery it settles,
 * before that delivery is consumed (or, for a mode that runs several deliveries as one unit and so
 * cannot be intercepted per delivery, before the first call of its handler, or before its outcome
 * is reported when its handler did not run); the observation's {@link Observed#openScope()} around
 * that delivery's turn in the consumer (through a {@link ConsumeInterceptor}), or, in such a mode,
 * around each call of a per-message handler for it ({@link ConsumeInterceptor#handlerScope}), on
 * the consuming thread; then exactly one of {@link Observed#outcome}, {@link Observed#failed} or
 * {@link Observed#rejected}; then any publishes, each inside {@link Observed#publishing}; then
 * {@link Observed#end()}, once. Every call is made on one thread at a time. An observer that throws
 * is logged by the adapter and never changes what the adapter does.
 */
@FunctionalInterface
public interface DeliveryObserver {

  /** Observes nothing; what every adapter uses unless given another. */
  DeliveryObserver NONE = delivery -> Observed.NONE;

  /**
   * The interceptor for one call of a mode with {@code messages}: each delivery's observation is
   * started by {@code observe} (given its index) as its turn begins, or in a one-commit batch at
   * its handler's first call, stored in {@code observed} for the adapter to settle, and current
   * while its turn or each handler call runs. Messages are matched by identity.
   *
   * @param messages the messages handed to the mode, in order
   * @param observed one slot per message, filled as deliveries are observed (null until then)
   * @param observe starts observing the message at an index
   * @return the interceptor, for the consuming thread
   * @throws IllegalArgumentException if {@code observed} has not one slot per message
   */
  static ConsumeInterceptor interceptorFor(
      List<Message> messages, Observed[] observed, IntFunction<Observed> observe) {
    return new ObservingInterceptor(
        Objects.requireNonNull(messages, "messages"),
        Objects.requireNonNull(observed, "observed"),
        Objects.requireNonNull(observe, "observe"));
  }

  /**
   * {@code observer} with every call guarded, as adapters use it: an exception thrown by the
   * observer or by one of its observations is logged and the call does nothing ({@link
   * Observed#NONE}, {@link Publish#NONE} or {@link Scope#NONE} in place of what it would have
   * returned), so a broken observer never changes what an adapter does.
   *
   * @param observer the observer; {@link #NONE} is returned as it is
   * @return the guarded observer
   * @throws NullPointerException if {@code observer} is null
   */
  static DeliveryObserver guarded(DeliveryObserver observer) {
    Objects.requireNonNull(observer, "observer");
    return observer == NONE || observer instanceof GuardedObserver
        ? observer
        : new GuardedObserver(observer);
  }

  /**
   * Starts observing one delivery.
   *
   * @param delivery what the adapter knows of it before it is consumed
   * @return the delivery's observation, never null
   */
  Observed received(Received delivery);

  /**
   * One delivery as an adapter received it.
   *
   * @param system the messaging system, in OpenTelemetry's words: {@code kafka}, {@code rabbitmq}
   * @param destination where it was read from: the topic or the queue
   * @param consumer the Inbox consumer's name
   * @param messageId the message id, or null when the delivery has none that is valid
   * @param attributes more about it, keyed by OpenTelemetry's attribute names (such as {@code
   *     messaging.destination.partition.id}, {@code messaging.kafka.offset}, {@code
   *     messaging.consumer.group.name}); values that differ per delivery; immutable copy
   * @param header reads the last value of a header of the delivery as text; null when absent. Valid
   *     until {@link Observed#end()}
   */
  record Received(
      String system,
      String destination,
      String consumer,
      String messageId,
      Map<String, String> attributes,
      UnaryOperator<String> header) {

    /**
     * Checks the required components and copies {@code attributes}.
     *
     * @param system the messaging system
     * @param destination the topic or queue
     * @param consumer the Inbox consumer's name
     * @param messageId the message id, or null
     * @param attributes more attributes; null is taken as none
     * @param header reads a header
     * @throws NullPointerException if {@code system}, {@code destination}, {@code consumer} or
     *     {@code header} is null
     */
    public Received {
      Objects.requireNonNull(system, "system");
      Objects.requireNonNull(destination, "destination");
      Objects.requireNonNull(consumer, "consumer");
      Objects.requireNonNull(header, "header");
      attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }
  }

  /** Why an adapter publishes a copy of a delivery while settling it. */
  enum Purpose {
    /** The delivery is dead: a copy goes to the dead-letter topic, exchange or queue. */
    DEAD_LETTER,
    /** The delivery is to be retried later: a copy goes to the retry queue (RabbitMQ). */
    RETRY
  }

  /** The observation of one delivery; see {@link DeliveryObserver} for the order of calls. */
  interface Observed {

    /** Observes nothing. */
    Observed NONE =
        new Observed() {
          @Override
          public Scope openScope() {
            return Scope.NONE;
          }

          @Override
          public void outcome(Outcome outcome) {}

          @Override
          public void failed(Throwable error) {}

          @Override
          public void rejected(String reason) {}

          @Override
          public Publish publishing(Purpose purpose, String destination) {
            return Publish.NONE;
          }

          @Override
          public void end() {}
        };

    /**
     * Makes this delivery's observation current on the calling thread until the scope is closed:
     * whatever runs meanwhile (the handler) sees it as its parent.
     *
     * @return the scope, to close on the same thread
     */
    Scope openScope();

    /**
     * The consumer's answer for the delivery.
     *
     * @param outcome the outcome
     */
    void outcome(Outcome outcome);

    /**
     * The consume call threw for the delivery (a lost lease, an unreachable store, a payload
     * mismatch, ...).
     *
     * @param error what it threw
     */
    void failed(Throwable error);

    /**
     * The delivery was not consumed: it has no valid message id.
     *
     * @param reason why, as the adapter reports it
     */
    void rejected(String reason);

    /**
     * Starts observing a copy the adapter publishes while settling the delivery, as its child; the
     * adapter adds {@link Publish#headers()} to the copy (so the trace goes on from there) and ends
     * it with {@link Publish#published()} or {@link Publish#failed}.
     *
     * @param purpose why the copy is published
     * @param destination where it goes: the topic, exchange or queue
     * @return the publish's observation, never null
     */
    Publish publishing(Purpose purpose, String destination);

    /** Ends the observation; later calls do nothing. */
    void end();
  }

  /** The observation of one publish; ended by exactly one of its two methods. */
  interface Publish {

    /** Observes nothing and adds no header. */
    Publish NONE =
        new Publish() {
          @Override
          public Map<String, String> headers() {
            return Map.of();
          }

          @Override
          public void published() {}

          @Override
          public void failed(Throwable error) {}
        };

    /**
     * Headers the published copy must carry (a W3C {@code traceparent}, for example), replacing
     * headers of the same name it copied from the delivery.
     *
     * @return the headers, immutable; empty when there are none
     */
    Map<String, String> headers();

    /** The broker confirmed the copy. */
    void published();

    /**
     * The copy was not confirmed.
     *
     * @param error why
     */
    void failed(Throwable error);
  }

  /** A scope opened by {@link Observed#openScope()}; closing it twice does nothing more. */
  interface Scope extends AutoCloseable {

    /** A scope that holds nothing. */
    Scope NONE = () -> {};

    /** Closes the scope; the observation that was current before becomes current again. */
    @Override
    void close();
  }
}
