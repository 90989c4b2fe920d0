package dev.archlab.inbox.outbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Publishes outbox rows to RabbitMQ with publisher confirms: each row is one persistent message
 * whose AMQP {@code message-id} property is the row's id (where {@code RabbitIds} of inbox-rabbitmq
 * reads it by default), whose headers are the row's headers plus its key in {@value #KEY_HEADER},
 * published with {@code mandatory} set. Where it goes: by default the destination is a queue name,
 * published through the default exchange; {@link Builder#routes} maps a destination to any exchange
 * and routing key.
 *
 * <p>Guarantees: a row is reported SENT only when the broker confirmed it (for a durable queue:
 * after it is persisted) and did not return it. A row the broker returned as unroutable (no queue
 * bound for its routing key), whose exchange does not exist (checked passively before the first
 * publish to it; exchanges found are remembered for a minute), or whose payload is larger than
 * {@link Builder#maxMessageBytes} is reported DEAD with the reason; a nack, a missing confirm
 * within {@link Builder#confirmTimeout} or a lost channel is RETRY. Rows are published in the order
 * given, on one channel. Used by one relay thread at a time; {@link #close()} closes the
 * connection.
 */
public final class RabbitOutboxPublisher implements OutboxPublisher {

  /** The header that carries the row's key (the relay's ordering key). */
  public static final String KEY_HEADER = "inbox-outbox-key";

  private static final long EXCHANGE_MEMORY_NANOS = TimeUnit.MINUTES.toNanos(1);

  /**
   * Where a destination's messages go.
   *
   * @param exchange the exchange, "" for the default exchange
   * @param routingKey the routing key
   */
  public record Route(String exchange, String routingKey) {

    /** Validates. */
    public Route {
      Objects.requireNonNull(exchange, "exchange");
      Objects.requireNonNull(routingKey, "routingKey");
    }
  }

  private final ConnectionFactory factory;
  private final Function<String, Route> routes;
  private final Duration confirmTimeout;
  private final long maxMessageBytes;
  private final Map<String, Long> exchangesFound = new HashMap<>();
  private Connection connection;
  private Channel channel;

  private RabbitOutboxPublisher(Builder b) {
    this.factory = b.factory;
    this.routes = b.routes;
    this.confirmTimeout = b.confirmTimeout;
    this.maxMessageBytes = b.maxMessageBytes;
  }

  /**
   * A builder for a publisher that connects with {@code factory}.
   *
   * @param factory where the broker is and how to log in; its automatic recovery is not relied on
   * @return a builder with the defaults: destination = queue name, 30 s confirm timeout, 128 MiB
   */
  public static Builder builder(ConnectionFactory factory) {
    return new Builder(factory);
  }

  @Override
  public List<PublishResult> publish(List<OutboxRow> rows) {
    List<PublishResult> results = new ArrayList<>(rows.size());
    Channel ch;
    try {
      ch = channel();
    } catch (IOException | TimeoutException | RuntimeException e) {
      for (int i = 0; i < rows.size(); i++) {
        results.add(PublishResult.retry("could not open a RabbitMQ channel: " + e));
      }
      return results;
    }
    Set<String> returned = ConcurrentHashMap.newKeySet();
    var listener =
        ch.addReturnListener(r -> returned.add(String.valueOf(r.getProperties().getMessageId())));
    List<Integer> published = new ArrayList<>();
    try {
      for (int i = 0; i < rows.size(); i++) {
        OutboxRow row = rows.get(i);
        PublishResult refused = refusal(row);
        if (refused != null) {
          results.add(refused);
          continue;
        }
        Route route = routes.apply(row.destination());
        ch.basicPublish(route.exchange(), route.routingKey(), true, properties(row), payload(row));
        published.add(i);
        results.add(null); // answered after the confirms
      }
      boolean allAcked = ch.waitForConfirms(confirmTimeout.toMillis());
      for (int i : published) {
        String id = rows.get(i).id();
        Route route = routes.apply(rows.get(i).destination());
        results.set(
            i,
            returned.contains(id)
                ? PublishResult.dead(
                    "unroutable: no queue bound to exchange '"
                        + route.exchange()
                        + "' for routing key '"
                        + route.routingKey()
                        + "'")
                : allAcked ? PublishResult.sent() : PublishResult.retry("the broker nacked"));
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      closeQuietly();
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) == null) {
          results.set(i, PublishResult.retry("not confirmed: " + e));
        }
      }
      while (results.size() < rows.size()) {
        results.add(PublishResult.retry("not published: " + e));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeQuietly();
      for (int i = 0; i < rows.size(); i++) {
        if (i >= results.size()) {
          results.add(PublishResult.retry("interrupted"));
        } else if (results.get(i) == null) {
          results.set(i, PublishResult.retry("interrupted"));
        }
      }
    } finally {
      if (channel != null && channel.isOpen()) {
        channel.removeReturnListener(listener);
      }
    }
    return results;
  }

  /** DEAD for what no retry can fix, before it is published; null if the row may go. */
  private PublishResult refusal(OutboxRow row) throws IOException, TimeoutException {
    byte[] payload = row.payload();
    if (payload != null && payload.length > maxMessageBytes) {
      return PublishResult.dead(
          "payload of " + payload.length + " bytes is over the limit of " + maxMessageBytes);
    }
    String exchange = routes.apply(row.destination()).exchange();
    if (!exchange.isEmpty() && !exchangeExists(exchange)) {
      return PublishResult.dead("exchange '" + exchange + "' does not exist");
    }
    return null;
  }

  /** Asks the broker on a channel of its own (a failed passive declare closes the channel). */
  private boolean exchangeExists(String exchange) throws IOException, TimeoutException {
    Long foundAt = exchangesFound.get(exchange);
    if (foundAt != null && System.nanoTime() - foundAt < EXCHANGE_MEMORY_NANOS) {
      return true;
    }
    connection();
    try (Channel probe = connection.createChannel()) {
      probe.exchangeDeclarePassive(exchange);
      exchangesFound.put(exchange, System.nanoTime());
      return true;
    } catch (IOException e) {
      if (isNotFound(e)) {
        return false;
      }
      throw e;
    } catch (com.rabbitmq.client.AlreadyClosedException e) {
      // The probe was closed by the broker's 404 before try-with-resources closed it.
      return false;
    }
  }

  private static boolean isNotFound(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof com.rabbitmq.client.ShutdownSignalException s
          && s.getReason() instanceof AMQP.Channel.Close close
          && close.getReplyCode() == AMQP.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  private static AMQP.BasicProperties properties(OutboxRow row) {
    Map<String, Object> headers = new HashMap<>(row.headers());
    if (row.key() != null) {
      headers.put(KEY_HEADER, row.key());
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(row.id())
        .deliveryMode(2)
        .headers(headers)
        .build();
  }

  private static byte[] payload(OutboxRow row) {
    return row.payload() == null ? new byte[0] : row.payload();
  }

  private void connection() throws IOException, TimeoutException {
    if (connection == null || !connection.isOpen()) {
      connection = factory.newConnection("inbox-outbox-relay");
    }
  }

  private Channel channel() throws IOException, TimeoutException {
    if (channel == null || !channel.isOpen()) {
      connection();
      channel = connection.createChannel();
      channel.confirmSelect();
    }
    return channel;
  }

  private void closeQuietly() {
    try {
      if (channel != null && channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      // Replaced on the next round anyway.
    }
    channel = null;
  }

  /** Closes the channel and the connection. */
  @Override
  public void close() {
    closeQuietly();
    try {
      if (connection != null && connection.isOpen()) {
        connection.close();
      }
    } catch (IOException | RuntimeException e) {
      // Closing anyway.
    }
  }

  /** Builds a {@link RabbitOutboxPublisher}; every setter validates its value. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private Function<String, Route> routes = destination -> new Route("", destination);
    private Duration confirmTimeout = Duration.ofSeconds(30);
    private long maxMessageBytes = 128L * 1024 * 1024;

    private Builder(ConnectionFactory factory) {
      this.factory = Objects.requireNonNull(factory, "factory");
    }

    /**
     * Maps a row's destination to an exchange and routing key. Default: the destination is a queue
     * name, published through the default exchange.
     *
     * @param routes the mapping; must not return null
     * @return this builder
     */
    public Builder routes(Function<String, Route> routes) {
      Function<String, Route> given = Objects.requireNonNull(routes, "routes");
      this.routes =
          destination -> {
            Route r = given.apply(destination);
            if (r == null) {
              throw new InvalidConfigurationException("no route for destination " + destination);
            }
            return r;
          };
      return this;
    }

    /**
     * How long a round waits for the broker's confirms before it reports its rows RETRY.
     *
     * @param timeout positive; default 30 s
     * @return this builder
     */
    public Builder confirmTimeout(Duration timeout) {
      if (timeout == null || timeout.isZero() || timeout.isNegative()) {
        throw new InvalidConfigurationException("confirmTimeout must be positive, was " + timeout);
      }
      this.confirmTimeout = timeout;
      return this;
    }

    /**
     * The largest payload published; a larger row is DEAD. Keep it at or below the broker's {@code
     * max_message_size}.
     *
     * @param bytes positive; default 128 MiB (RabbitMQ's default limit)
     * @return this builder
     */
    public Builder maxMessageBytes(long bytes) {
      if (bytes <= 0) {
        throw new InvalidConfigurationException("maxMessageBytes must be positive, was " + bytes);
      }
      this.maxMessageBytes = bytes;
      return this;
    }

    /**
     * The publisher; it connects on its first round.
     *
     * @return the publisher
     */
    public RabbitOutboxPublisher build() {
      return new RabbitOutboxPublisher(this);
    }
  }
}
