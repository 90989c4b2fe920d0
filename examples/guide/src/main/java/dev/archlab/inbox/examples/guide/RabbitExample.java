package dev.archlab.inbox.examples.guide;

import com.rabbitmq.client.ConnectionFactory;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.rabbitmq.RabbitInboxConsumer;
import dev.archlab.inbox.rabbitmq.RabbitTopology;
import javax.sql.DataSource;

/**
 * The RabbitMQ guide's example: a {@link RabbitInboxConsumer} that writes each order once in the
 * one-commit mode. Compiled by the build; it needs a broker to run (inbox-rabbitmq's tests run the
 * consumer against a real one).
 */
public final class RabbitExample {

  private RabbitExample() {}

  /**
   * Starts consuming the {@code orders} queue.
   *
   * @param dataSource the database holding the inbox and orders tables
   * @param host the RabbitMQ host
   * @return the running consumer; {@link RabbitInboxConsumer#close()} stops it
   */
  public static RabbitInboxConsumer start(DataSource dataSource, String host) {
    // tag::consumer[]
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).build();
    OneCommitConsumer orders =
        OneCommitConsumer.builder("orders", store)
            .handler((message, attempt, connection) -> Orders.insert(connection, message))
            .build();
    ConnectionFactory rabbit = new ConnectionFactory(); // com.rabbitmq.client
    rabbit.setHost(host);
    RabbitInboxConsumer consumer =
        RabbitInboxConsumer.builder(rabbit, RabbitTopology.forQueue("orders"), orders.asMode())
            .consumers(3) // channels, each with its own worker thread; default 1
            .prefetch(100) // unacked deliveries per channel; default 100
            .build();
    consumer.start(); // declares orders.retry, orders.dlx, orders.dlq (or checks they match)
    // on shutdown, consumer.close(): cancels, lets running batches finish
    // end::consumer[]
    return consumer;
  }
}
