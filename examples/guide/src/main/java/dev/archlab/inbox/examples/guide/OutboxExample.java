// tag::outbox[]
package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRelay;
import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/** The outbox guide's example: an order written once, and its payment request sent with it. */
public final class OutboxExample {

  private OutboxExample() {}

  /** Consumes an order and its redelivery, then relays what the handler sent. */
  public static List<Outcome> run(DataSource dataSource, OutboxPublisher publisher)
      throws SQLException {
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).build();
    store.createSchemaIfMissing();
    Outbox outbox = Outbox.builder(dataSource).build(); // table inbox_outbox
    outbox.createSchemaIfMissing(); // the shipped V1__create_outbox.sql of this database
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS orders (order_id VARCHAR(255) PRIMARY KEY)");
    }

    List<Outcome> outcomes;
    // tag::readme[]
    try (OneCommitConsumer orders =
        OneCommitConsumer.builder("orders", store)
            .handler(
                (message, attempt, connection) -> {
                  try (PreparedStatement ps =
                      connection.prepareStatement("INSERT INTO orders (order_id) VALUES (?)")) {
                    ps.setString(1, message.id());
                    ps.executeUpdate();
                  }
                  // Same transaction: sent only if the order commits, under an id derived from
                  // ("orders", message id, 0), the same on every re-run of this handler.
                  outbox
                      .sendsOf(attempt, connection)
                      .send("payments", message.id(), message.payload());
                })
            .build()) {
      Message order =
          Message.of("order-42", "orders", "{\"cents\":1250}".getBytes(StandardCharsets.UTF_8));
      outcomes = List.of(orders.consume(order), orders.consume(order)); // APPLIED, DUPLICATE
    }

    try (OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build()) {
      relay.relayOnce(); // or relay.start(): rounds on a thread of its own, a 100 ms poll when idle
    }
    // end::readme[]
    return outcomes;
  }

  /** The publisher for a real cluster: idempotent, acks=all, the id in the message-id header. */
  public static OutboxPublisher kafka(String bootstrapServers) {
    return KafkaOutboxPublisher.builder(bootstrapServers).build();
  }
}
// end::outbox[]
