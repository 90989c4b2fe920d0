package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ReturnListener;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes on one channel in confirm mode and returns only once the broker confirmed the message
 * was routed to a queue: publishes are {@code mandatory}, so an unroutable message comes back as a
 * return (which the broker sends before the confirm) and counts as a failure. Used by one thread at
 * a time, the channel's worker.
 */
final class ConfirmedPublisher {

  private final Channel channel;
  private final Duration timeout;
  private final AtomicLong returned = new AtomicLong();

  ConfirmedPublisher(Channel channel, Duration timeout) throws IOException {
    this.channel = channel;
    this.timeout = timeout;
    channel.confirmSelect();
    ReturnListener onReturn =
        (replyCode, replyText, exchange, routingKey, props, body) -> returned.incrementAndGet();
    channel.addReturnListener(onReturn);
  }

  /**
   * Publishes and waits for the broker's confirmation.
   *
   * @throws BrokerException if the broker did not confirm, refused, returned the message as
   *     unroutable, or the channel closed
   */
  void publish(String exchange, String routingKey, AMQP.BasicProperties props, byte[] body) {
    String where = "exchange '" + exchange + "' with routing key '" + routingKey + "'";
    long returnsBefore = returned.get();
    boolean acked;
    try {
      channel.basicPublish(exchange, routingKey, true, props, body);
      acked = channel.waitForConfirms(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException("interrupted while publishing to " + where, e);
    } catch (TimeoutException e) {
      throw new BrokerException("publish to " + where + " not confirmed within " + timeout, e);
    } catch (IOException | RuntimeException e) {
      throw new BrokerException("publish to " + where + " failed: " + e, e);
    }
    if (!acked) {
      throw new BrokerException("broker refused (nack) the publish to " + where, null);
    }
    if (returned.get() != returnsBefore) {
      throw new BrokerException("publish to " + where + " was returned: no queue is bound", null);
    }
  }
}
