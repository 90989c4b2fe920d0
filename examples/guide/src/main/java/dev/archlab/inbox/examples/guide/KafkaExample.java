package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.kafka.KafkaIds;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import dev.archlab.inbox.kafka.KafkaLoopListener;
import dev.archlab.inbox.kafka.PausedPartitions;
import dev.archlab.inbox.micrometer.KafkaLoopMeters;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The Kafka guide's example: a {@link KafkaInboxLoop} that writes each order once in the one-commit
 * mode. Compiled by the build; it needs a broker to run (inbox-kafka's tests run the loop against a
 * real one).
 */
public final class KafkaExample {

  private KafkaExample() {}

  /**
   * Starts the loop on its own thread.
   *
   * @param dataSource the database holding the inbox and orders tables
   * @param bootstrapServers the Kafka bootstrap servers
   * @param registry where the paused-partition meters go
   * @return the running loop; {@link KafkaInboxLoop#close()} stops it
   */
  public static KafkaInboxLoop start(
      DataSource dataSource, String bootstrapServers, MeterRegistry registry) {
    // tag::loop[]
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).build();
    OneCommitConsumer orders =
        OneCommitConsumer.builder("orders", store)
            .handler((message, attempt, connection) -> Orders.insert(connection, message))
            .build();
    Map<String, Object> kafka =
        Map.of(
            "bootstrap.servers", bootstrapServers,
            "group.id", "order-service", // required
            "auto.offset.reset", "earliest"); // enable.auto.commit must stay false
    PausedPartitions paused = new PausedPartitions();
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(kafka, orders.asMode())
            .topics("orders") // dead letters go to "orders.DLT" (must exist)
            .messageIds(KafkaIds.header("message-id")) // the default
            .parallelism(3) // partitions at once; each stays in order
            .listener(KafkaLoopListener.all(paused))
            .build();
    KafkaLoopMeters.pausedPartitions("orders", paused).bindTo(registry);
    Thread poller = new Thread(loop::run, "orders-loop");
    poller.start();
    // on shutdown, loop.close(): stops taking records, lets running handlers finish, commits
    // end::loop[]
    return loop;
  }
}
