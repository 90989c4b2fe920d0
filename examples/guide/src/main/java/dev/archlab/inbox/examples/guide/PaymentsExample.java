// tag::payments[]
package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** The JDBC guide's end-to-end example: a payment event applied once to a ledger table. */
public final class PaymentsExample {

  private static final System.Logger LOG = System.getLogger("payments");

  /** Consumes one payment event and its redelivery; returns both outcomes. */
  public static List<Outcome> run(DataSource dataSource) throws SQLException {
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).table("inbox").build();
    store.createSchemaIfMissing(); // the dedup table: same DDL as the shipped V1__create_inbox.sql
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS ledger ("
              + " event_id VARCHAR(255) NOT NULL,"
              + " amount_cents BIGINT NOT NULL,"
              + " CONSTRAINT ledger_event_uk UNIQUE (event_id))"); // optional, see below
    }

    try (IdempotentConsumer payments =
        IdempotentConsumer.builder("payments", store)
            .effect(
                store.transactional(
                    (message, attempt, connection) -> {
                      // Write through this connection only; never commit or close it.
                      try (PreparedStatement ps =
                          connection.prepareStatement(
                              "INSERT INTO ledger (event_id, amount_cents) VALUES (?, ?)")) {
                        ps.setString(1, message.id());
                        ps.setLong(
                            2,
                            Long.parseLong(new String(message.payload(), StandardCharsets.UTF_8)));
                        ps.executeUpdate();
                      }
                    }))
            .config(
                InboxConfig.custom()
                    .lease(Duration.ofSeconds(30))
                    .retryPolicy(RetryPolicy.custom().maxAttempts(5).build())
                    .build())
            .listener(e -> LOG.log(System.Logger.Level.INFO, e.kind() + " " + e.messageId()))
            .deadLetterHandler(
                (message, record) ->
                    LOG.log(
                        System.Logger.Level.ERROR,
                        "parked " + message.id() + ": " + record.lastError()))
            .build()) {
      Message message =
          new Message(
              "pay-2026-0001", // the producer's event id, the same on every redelivery
              "payments.captured",
              "1250".getBytes(StandardCharsets.UTF_8),
              Map.of("content-type", "text/plain"));
      Outcome first = payments.consume(message); // APPLIED: one ledger row, record DONE
      Outcome again = payments.consume(message); // the broker redelivers: DUPLICATE, no new row
      return List.of(first, again);
    }
  }
}
// end::payments[]
