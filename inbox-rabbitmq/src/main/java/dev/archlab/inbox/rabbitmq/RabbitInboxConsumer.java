package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.broker.DeliveryObserver;
import dev.archlab.inbox.broker.MessageIdSource;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * A RabbitMQ consumer (official {@code amqp-client}, manual acks) that hands deliveries to an Inbox
 * consumer ({@link ConsumeMode}: {@code consumer.asMode()}) and settles each delivery by its
 * outcome, as the shared {@link dev.archlab.inbox.broker.BrokerDecision} decides:
 *
 * <ul>
 *   <li>APPLIED and DUPLICATE: {@code basicAck}.
 *   <li>IN_FLIGHT and FAILED: a copy is published to the retry queue with a per-message TTL of
 *       {@link dev.archlab.inbox.Outcome#retryAfter()} (rounded up to whole milliseconds, within
 *       {@code minRetryDelay} and {@code maxRetryDelay}); when it expires the broker dead-letters
 *       it back to the work queue. The original is acked only after the broker confirmed the copy,
 *       so it comes back no sooner than its TTL and is never lost; there is no loop of immediate
 *       requeues.
 *   <li>DEAD, a delivery without a valid message id, and a payload mismatch: a copy is published to
 *       the dead-letter exchange with the headers {@code inbox-original-queue}, {@code
 *       inbox-consumer}, {@code inbox-attempts} and {@code inbox-last-error}, and the original is
 *       acked only after the broker confirmed it. At least once: a DEAD delivery redelivered before
 *       its ack reached the broker is dead-lettered again.
 *   <li>A publish that is not confirmed leaves the delivery unacked; after {@code errorBackoff} it
 *       is requeued ({@code basicNack} with requeue).
 *   <li>A store error from {@code consume} is treated as a retry after {@code errorBackoff}.
 * </ul>
 *
 * <p>Each of {@code consumers} channels has its own worker thread and prefetch; a channel's
 * deliveries are consumed and settled in order. With automatic recovery on (the default), a lost
 * connection is reopened and the consumers re-registered by the client; deliveries that were not
 * acked come back marked redelivered and are answered DUPLICATE or IN_FLIGHT by the inbox, never
 * applied twice. {@link #start()} once, {@link #close()} to stop.
 */
public final class RabbitInboxConsumer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(RabbitInboxConsumer.class.getName());

  private final ConnectionFactory factory;
  private final ChannelWorker.Parts parts;
  private final int consumers;
  private final boolean declareTopology;
  private final Duration closeTimeout;
  private final String connectionName;

  private final List<ChannelWorker> workers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private Connection connection;
  private boolean started;
  private boolean closed;

  private RabbitInboxConsumer(Builder b) {
    this.factory = b.factory;
    this.parts =
        new ChannelWorker.Parts(
            b.mode.batchesOf(
                b.maxDeliveriesPerCall == null
                    ? b.prefetch
                    : Math.min(b.maxDeliveriesPerCall, b.prefetch)),
            b.linger,
            b.ids,
            b.missingId,
            b.topology,
            b.listener,
            b.prefetch,
            b.confirmTimeout,
            b.errorBackoff,
            b.minRetryDelay,
            b.maxRetryDelay,
            DeliveryObserver.guarded(b.observer));
    this.consumers = b.consumers;
    this.declareTopology = b.declareTopology;
    this.closeTimeout = b.closeTimeout;
    this.connectionName = "inbox-" + b.mode.consumerName();
  }

  /**
   * A builder for a consumer of {@code topology}'s work queue.
   *
   * @param factory how to connect; copied, the caller's factory is not changed
   * @param topology the queues and exchanges
   * @param mode which Inbox consumer runs the deliveries
   * @return the builder
   */
  public static Builder builder(
      ConnectionFactory factory, RabbitTopology topology, ConsumeMode mode) {
    return new Builder(factory, topology, mode);
  }

  /**
   * Connects, declares (or checks) the topology and starts the consumers. Returns once every
   * channel's consumer is registered.
   *
   * @throws BrokerException if the broker cannot be reached
   * @throws InvalidConfigurationException if the topology does not match (see {@link
   *     RabbitTopology#declare})
   * @throws IllegalStateException if started before
   */
  public synchronized void start() {
    if (started) {
      throw new IllegalStateException("a RabbitInboxConsumer starts once");
    }
    started = true;
    try {
      connection = factory.newConnection(connectionName);
    } catch (IOException | TimeoutException e) {
      throw new BrokerException("could not connect to RabbitMQ: " + e, e);
    }
    try {
      if (declareTopology) {
        parts.topology().declare(connection);
      } else {
        parts.topology().checkExists(connection);
      }
      for (int i = 0; i < consumers; i++) {
        ChannelWorker w = new ChannelWorker(parts, connection);
        w.open();
        Thread t = new Thread(w, connectionName + "-" + (i + 1));
        t.setDaemon(true);
        workers.add(w);
        threads.add(t);
      }
    } catch (IOException | RuntimeException e) {
      closeConnection();
      if (e instanceof RuntimeException r) {
        throw r;
      }
      throw new BrokerException("could not open a consumer channel: " + e, e);
    }
    threads.forEach(Thread::start);
  }

  /**
   * Stops: the consumers are cancelled, each worker finishes its running batch (up to the close
   * timeout) and the connection closes, which returns every unacked delivery to the queue. Safe to
   * call more than once.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    workers.forEach(ChannelWorker::stop);
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    for (Thread t : threads) {
      try {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (t.isAlive()) {
        LOG.log(Level.WARNING, t.getName() + " still running after " + closeTimeout);
      }
    }
    closeConnection();
  }

  private void closeConnection() {
    Connection c = connection;
    if (c != null && c.isOpen()) {
      try {
        c.close((int) closeTimeout.toMillis());
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.DEBUG, "connection close failed", e);
      }
    }
  }

  /**
   * Builds a {@link RabbitInboxConsumer}. Defaults: ids from the AMQP {@code message_id} property,
   * deliveries without an id dead-lettered, 1 consumer channel, prefetch 100 (or the batch size if
   * larger), automatic connection recovery on with a 1 s network recovery interval, topology
   * declared, retry delay between 100 ms and 30 s, confirm timeout 30 s, error backoff 1 s, close
   * timeout 30 s, no listener, no observer.
   */
  public static final class Builder {
    private final ConnectionFactory factory;
    private final RabbitTopology topology;
    private final ConsumeMode mode;
    private MessageIdSource<Delivery> ids = RabbitIds.messageIdProperty();
    private MissingIdAction missingId = MissingIdAction.DEAD_LETTER;
    private RabbitInboxListener listener = RabbitInboxListener.none();
    private DeliveryObserver observer = DeliveryObserver.NONE;
    private int consumers = 1;
    private Integer prefetch;
    private Integer maxDeliveriesPerCall;
    private Duration linger = Duration.ZERO;
    private boolean automaticRecovery = true;
    private Duration networkRecoveryInterval = Duration.ofSeconds(1);
    private boolean declareTopology = true;
    private Duration minRetryDelay = Duration.ofMillis(100);
    private Duration maxRetryDelay = Duration.ofSeconds(30);
    private Duration confirmTimeout = Duration.ofSeconds(30);
    private Duration errorBackoff = Duration.ofSeconds(1);
    private Duration closeTimeout = Duration.ofSeconds(30);

    private Builder(ConnectionFactory factory, RabbitTopology topology, ConsumeMode mode) {
      this.factory = Objects.requireNonNull(factory, "factory").clone();
      this.topology = Objects.requireNonNull(topology, "topology");
      this.mode = Objects.requireNonNull(mode, "mode");
    }

    /**
     * Where the message id comes from.
     *
     * @param ids the source: {@link RabbitIds#messageIdProperty()} (the default), {@link
     *     RabbitIds#header}, or an own source
     * @return this builder
     */
    public Builder messageIds(MessageIdSource<Delivery> ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    /**
     * What to do with a delivery without a valid id.
     *
     * @param action default {@link MissingIdAction#DEAD_LETTER}
     * @return this builder
     */
    public Builder onMissingId(MissingIdAction action) {
      this.missingId = Objects.requireNonNull(action, "action");
      return this;
    }

    /**
     * Hears what the consumer did.
     *
     * @param listener default none
     * @return this builder
     */
    public Builder listener(RabbitInboxListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Where each delivery is reported for tracing ({@code InboxObservations.deliveryObserver()} in
     * {@code inbox-micrometer}): observed from its turn in the consumer (current while the handler
     * runs) until it is settled; its dead-letter or retry copy is published in a child observation
     * whose context replaces the delivery's {@code traceparent} header in the copy, so a retried
     * delivery's next attempt continues the same trace.
     *
     * @param observer default {@link DeliveryObserver#NONE}
     * @return this builder
     */
    public Builder observer(DeliveryObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /**
     * How many channels consume the work queue, each with its own worker thread.
     *
     * @param consumers at least 1; default 1
     * @return this builder
     * @throws InvalidConfigurationException if below 1
     */
    public Builder consumers(int consumers) {
      if (consumers < 1) {
        throw new InvalidConfigurationException("consumers must be >= 1, was " + consumers);
      }
      this.consumers = consumers;
      return this;
    }

    /**
     * Unacked deliveries per channel ({@code basicQos}).
     *
     * @param prefetch 1 to 65535 and at least the mode's batch size; default 100 or the batch size
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public Builder prefetch(int prefetch) {
      if (prefetch < 1 || prefetch > 65535) {
        throw new InvalidConfigurationException(
            "prefetch must be between 1 and 65535, was " + prefetch);
      }
      this.prefetch = prefetch;
      return this;
    }

    /**
     * Most deliveries of one channel consumed in one call of a one-commit mode ({@code
     * OneCommitConsumer.asMode()}): they form one transaction ({@code
     * OneCommitConsumer.consumeBatch} in {@code inbox-jdbc}: one multi-row claim, the handler once
     * per new message, one commit), each delivery settled as if alone. 1 turns the grouping off.
     * The per-message mode always runs one delivery per call; the batch mode keeps its own size.
     *
     * @param max at least 1; default: the prefetch, what one channel can hold unacked
     * @return this builder
     * @throws InvalidConfigurationException if below 1
     */
    public Builder maxDeliveriesPerCall(int max) {
      if (max < 1) {
        throw new InvalidConfigurationException("maxDeliveriesPerCall must be >= 1, was " + max);
      }
      this.maxDeliveriesPerCall = max;
      return this;
    }

    /**
     * How long a worker that took a delivery waits for more to arrive before it consumes what it
     * has, while fewer than a full call's worth wait: a little latency for fuller batches when
     * messages trickle in. Zero consumes at once what has arrived.
     *
     * @param d zero or positive; default zero
     * @return this builder
     * @throws InvalidConfigurationException if negative
     */
    public Builder linger(Duration d) {
      Objects.requireNonNull(d, "linger");
      if (d.isNegative()) {
        throw new InvalidConfigurationException("linger must not be negative, was " + d);
      }
      this.linger = d;
      return this;
    }

    /**
     * Whether the client reopens a lost connection and re-registers the consumers. When off, a lost
     * connection ends consuming (nothing is lost: unacked deliveries return to the queue); close
     * this consumer and start a new one.
     *
     * @param on default true
     * @return this builder
     */
    public Builder automaticRecovery(boolean on) {
      this.automaticRecovery = on;
      return this;
    }

    /**
     * How long the client waits between attempts to reopen a lost connection.
     *
     * @param d positive; default 1 s
     * @return this builder
     */
    public Builder networkRecoveryInterval(Duration d) {
      this.networkRecoveryInterval = positive("networkRecoveryInterval", d);
      return this;
    }

    /**
     * Whether {@link #start()} declares the topology ({@link RabbitTopology#declare}, the default)
     * or only checks that it exists ({@link RabbitTopology#checkExists}).
     *
     * @param declare default true
     * @return this builder
     */
    public Builder declareTopology(boolean declare) {
      this.declareTopology = declare;
      return this;
    }

    /**
     * The shortest TTL of a retry copy: keeps a zero {@code retryAfter} from becoming a tight loop.
     *
     * @param d positive; default 100 ms
     * @return this builder
     */
    public Builder minRetryDelay(Duration d) {
      this.minRetryDelay = positive("minRetryDelay", d);
      return this;
    }

    /**
     * The longest TTL of a retry copy. Coming back early is harmless (IN_FLIGHT again); a short cap
     * also bounds how long a copy waits behind a longer TTL in the retry queue.
     *
     * @param d positive; default 30 s
     * @return this builder
     */
    public Builder maxRetryDelay(Duration d) {
      this.maxRetryDelay = positive("maxRetryDelay", d);
      return this;
    }

    /**
     * How long to wait for the broker to confirm a retry or dead-letter copy.
     *
     * @param d positive; default 30 s
     * @return this builder
     */
    public Builder confirmTimeout(Duration d) {
      this.confirmTimeout = positive("confirmTimeout", d);
      return this;
    }

    /**
     * The retry delay after a store error, and the wait before requeueing a delivery whose copy was
     * not confirmed.
     *
     * @param d positive; default 1 s
     * @return this builder
     */
    public Builder errorBackoff(Duration d) {
      this.errorBackoff = positive("errorBackoff", d);
      return this;
    }

    /**
     * How long {@link #close()} waits for running batches.
     *
     * @param d positive; default 30 s
     * @return this builder
     */
    public Builder closeTimeout(Duration d) {
      this.closeTimeout = positive("closeTimeout", d);
      return this;
    }

    /**
     * Builds the consumer.
     *
     * @return the consumer, not started
     * @throws InvalidConfigurationException if the prefetch is below the batch size or the minimum
     *     retry delay above the maximum
     */
    public RabbitInboxConsumer build() {
      int batch = mode.maxBatch();
      if (prefetch == null) {
        prefetch = Math.max(100, Math.min(batch, 65535));
      }
      if (prefetch < batch) {
        throw new InvalidConfigurationException(
            "prefetch ("
                + prefetch
                + ") must be at least the batch size ("
                + batch
                + "): a batch is filled only from the unacked deliveries of one channel");
      }
      if (minRetryDelay.compareTo(maxRetryDelay) > 0) {
        throw new InvalidConfigurationException(
            "minRetryDelay ("
                + minRetryDelay
                + ") must not exceed maxRetryDelay ("
                + maxRetryDelay
                + ")");
      }
      factory.setAutomaticRecoveryEnabled(automaticRecovery);
      factory.setTopologyRecoveryEnabled(automaticRecovery);
      factory.setNetworkRecoveryInterval(networkRecoveryInterval.toMillis());
      return new RabbitInboxConsumer(this);
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new InvalidConfigurationException(name + " must be positive, was " + d);
      }
      return d;
    }
  }
}
