package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.archlab.inbox.InvalidConfigurationException;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * The names of the queues and exchanges one work queue needs, and the way to declare them or check
 * that existing ones match. Immutable.
 *
 * <ul>
 *   <li>the <b>work queue</b> the consumer reads (durable; declared plain if missing, taken as it
 *       is if it exists);
 *   <li>the <b>retry queue</b> (default {@code <queue>.retry}): IN_FLIGHT and FAILED deliveries are
 *       published to it through the default exchange with a per-message TTL; its {@code
 *       x-dead-letter-exchange} is the default exchange and its {@code x-dead-letter-routing-key}
 *       the work queue, so an expired copy goes back to the work queue;
 *   <li>the <b>dead-letter exchange</b> (default {@code <queue>.dlx}, direct) and the
 *       <b>dead-letter queue</b> (default {@code <queue>.dlq}) bound to it with the work queue's
 *       name as routing key: DEAD deliveries and deliveries without an id go there.
 * </ul>
 *
 * <p>Per-message TTLs expire in queue order: a copy waits at least its own TTL and at most as long
 * as the longest TTL ahead of it, which {@link RabbitInboxConsumer.Builder#maxRetryDelay} bounds.
 */
public final class RabbitTopology {

  private final String workQueue;
  private final String retryQueue;
  private final String deadLetterExchange;
  private final String deadLetterQueue;

  private RabbitTopology(
      String workQueue, String retryQueue, String deadLetterExchange, String deadLetterQueue) {
    this.workQueue = name("work queue", workQueue);
    this.retryQueue = name("retry queue", retryQueue);
    this.deadLetterExchange = name("dead-letter exchange", deadLetterExchange);
    this.deadLetterQueue = name("dead-letter queue", deadLetterQueue);
    if (retryQueue.equals(workQueue) || deadLetterQueue.equals(workQueue)) {
      throw new InvalidConfigurationException(
          "the retry and dead-letter queues must differ from the work queue '" + workQueue + "'");
    }
    if (retryQueue.equals(deadLetterQueue)) {
      throw new InvalidConfigurationException(
          "the retry queue and the dead-letter queue must differ, both were '" + retryQueue + "'");
    }
  }

  /**
   * The default names for {@code workQueue}: {@code <queue>.retry}, {@code <queue>.dlx} and {@code
   * <queue>.dlq}.
   *
   * @param workQueue the queue the consumer reads
   * @return the topology
   * @throws InvalidConfigurationException if the name is blank or longer than 255 characters
   */
  public static RabbitTopology forQueue(String workQueue) {
    Objects.requireNonNull(workQueue, "workQueue");
    return new RabbitTopology(
        workQueue, workQueue + ".retry", workQueue + ".dlx", workQueue + ".dlq");
  }

  /**
   * This topology with another retry queue.
   *
   * @param name the retry queue's name
   * @return a new topology
   */
  public RabbitTopology withRetryQueue(String name) {
    return new RabbitTopology(workQueue, name, deadLetterExchange, deadLetterQueue);
  }

  /**
   * This topology with another dead-letter exchange and queue.
   *
   * @param exchange the dead-letter exchange's name
   * @param queue the dead-letter queue's name
   * @return a new topology
   */
  public RabbitTopology withDeadLetters(String exchange, String queue) {
    return new RabbitTopology(workQueue, retryQueue, exchange, queue);
  }

  /**
   * The queue the consumer reads.
   *
   * @return its name
   */
  public String workQueue() {
    return workQueue;
  }

  /**
   * The queue where IN_FLIGHT and FAILED deliveries wait for their TTL.
   *
   * @return its name
   */
  public String retryQueue() {
    return retryQueue;
  }

  /**
   * The exchange dead letters are published to, with the work queue's name as routing key.
   *
   * @return its name
   */
  public String deadLetterExchange() {
    return deadLetterExchange;
  }

  /**
   * The queue bound to the dead-letter exchange.
   *
   * @return its name
   */
  public String deadLetterQueue() {
    return deadLetterQueue;
  }

  /**
   * Declares what is missing and checks what exists: the work queue (durable, declared only if
   * missing), the retry queue with its dead-lettering arguments, the dead-letter exchange (direct,
   * durable), the dead-letter queue and its binding. Idempotent.
   *
   * @param connection an open connection; a short-lived channel is used per step
   * @throws InvalidConfigurationException if an existing queue or exchange has other arguments or
   *     another type (the message carries the broker's reason)
   * @throws BrokerException if the broker cannot be reached
   */
  public void declare(Connection connection) {
    boolean workExists = step(connection, c -> c.queueDeclarePassive(workQueue), true);
    if (!workExists) {
      step(connection, c -> c.queueDeclare(workQueue, true, false, false, null), false);
    }
    step(
        connection,
        c ->
            c.queueDeclare(
                retryQueue,
                true,
                false,
                false,
                Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", workQueue)),
        false);
    step(
        connection,
        c -> c.exchangeDeclare(deadLetterExchange, BuiltinExchangeType.DIRECT, true),
        false);
    step(connection, c -> c.queueDeclare(deadLetterQueue, true, false, false, null), false);
    step(connection, c -> c.queueBind(deadLetterQueue, deadLetterExchange, workQueue), false);
  }

  /**
   * Checks only that the work queue, the retry queue and the dead-letter exchange exist, for users
   * who manage the topology themselves and do not grant the configure permission. Arguments cannot
   * be checked this way.
   *
   * @param connection an open connection
   * @throws InvalidConfigurationException if one of them is missing
   * @throws BrokerException if the broker cannot be reached
   */
  public void checkExists(Connection connection) {
    requireExists(connection, "work queue", workQueue, c -> c.queueDeclarePassive(workQueue));
    requireExists(connection, "retry queue", retryQueue, c -> c.queueDeclarePassive(retryQueue));
    requireExists(
        connection,
        "dead-letter exchange",
        deadLetterExchange,
        c -> c.exchangeDeclarePassive(deadLetterExchange));
  }

  private static void requireExists(Connection connection, String what, String name, Step step) {
    if (!step(connection, step, true)) {
      throw new InvalidConfigurationException(what + " '" + name + "' does not exist");
    }
  }

  /** A broker call that may close its channel with a 404 or a 406. */
  @FunctionalInterface
  private interface Step {
    void run(Channel channel) throws IOException;
  }

  /** Runs one step on its own channel; returns false on 404 when {@code notFoundIsFalse}. */
  private static boolean step(Connection connection, Step step, boolean notFoundIsFalse) {
    try (Channel c = connection.createChannel()) {
      step.run(c);
      return true;
    } catch (IOException e) {
      ShutdownSignalException s = shutdownSignal(e);
      int code = s == null ? -1 : replyCode(s);
      if (code == 404 && notFoundIsFalse) {
        return false;
      }
      if (code == 404 || code == 406 || code == 403) {
        throw new InvalidConfigurationException("RabbitMQ topology refused: " + s.getMessage());
      }
      throw new BrokerException("RabbitMQ topology step failed: " + e, e);
    } catch (TimeoutException e) {
      throw new BrokerException("RabbitMQ channel close timed out: " + e, e);
    } catch (ShutdownSignalException e) {
      // Closing a channel the broker already closed: the step's own exception came first.
      throw new BrokerException("RabbitMQ channel closed: " + e.getMessage(), e);
    }
  }

  private static ShutdownSignalException shutdownSignal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ShutdownSignalException s) {
        return s;
      }
    }
    return null;
  }

  private static int replyCode(ShutdownSignalException s) {
    Object reason = s.getReason();
    if (reason instanceof com.rabbitmq.client.AMQP.Channel.Close close) {
      return close.getReplyCode();
    }
    return -1;
  }

  private static String name(String what, String name) {
    if (name == null || name.isBlank() || name.length() > 255) {
      throw new InvalidConfigurationException(
          what + " name must be 1 to 255 characters and not blank, was '" + name + "'");
    }
    return name;
  }

  @Override
  public String toString() {
    return "RabbitTopology[work="
        + workQueue
        + ", retry="
        + retryQueue
        + ", dlx="
        + deadLetterExchange
        + ", dlq="
        + deadLetterQueue
        + "]";
  }
}
