package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/** A work queue with its topology on the test broker, publishing with confirms, for one test. */
final class RabbitFixture implements AutoCloseable {

  final RabbitBroker broker = RabbitBroker.get();
  final RabbitTopology topology;
  private Connection connection;
  private Channel channel;

  RabbitFixture(String name) {
    this.topology =
        RabbitTopology.forQueue(name + "-" + UUID.randomUUID().toString().substring(0, 8));
    reconnect();
    topology.declare(connection);
  }

  /** Opens a new connection (the old one is gone after a broker restart). */
  void reconnect() {
    close();
    this.connection = broker.connect();
    try {
      this.channel = connection.createChannel();
      channel.confirmSelect();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Publishes a persistent message with {@code id} as message_id (none if null), confirmed. */
  void publish(String id, String payload) {
    publishNoWait(id, payload);
    confirm();
  }

  void publishNoWait(String id, String payload) {
    AMQP.BasicProperties props =
        new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).build();
    try {
      channel.basicPublish(
          "", topology.workQueue(), props, payload.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("publish failed", e);
    }
  }

  /** Waits until the broker confirmed every publish so far. */
  void confirm() {
    try {
      channel.waitForConfirmsOrDie(60_000);
    } catch (IOException | InterruptedException | TimeoutException e) {
      throw new IllegalStateException("publishes not confirmed", e);
    }
  }

  /** Ready messages in {@code queue} (not counting unacked ones). */
  long ready(String queue) {
    try (Channel c = connection.createChannel()) {
      return c.queueDeclarePassive(queue).getMessageCount();
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Every message now in the dead-letter queue, read without removing them (they are returned to
   * the queue when the reading channel closes).
   */
  List<GetResponse> deadLetters() {
    List<GetResponse> out = new ArrayList<>();
    try (Channel c = connection.createChannel()) {
      GetResponse r;
      while ((r = c.basicGet(topology.deadLetterQueue(), false)) != null) {
        out.add(r);
      }
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  static String header(GetResponse r, String name) {
    Object v = r.getProps().getHeaders() == null ? null : r.getProps().getHeaders().get(name);
    return v == null ? null : v.toString();
  }

  @Override
  public void close() {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (IOException | RuntimeException e) {
      // the broker may be restarting; the connection is gone either way
    }
  }
}
