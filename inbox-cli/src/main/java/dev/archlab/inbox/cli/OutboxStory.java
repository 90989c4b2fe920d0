package dev.archlab.inbox.cli;

import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.outbox.Outbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The demo's outbox scenario: a one-commit handler that sends a message through the outbox, then
 * fails on its first run; the redelivery runs it again and it succeeds; a third delivery is a
 * duplicate. The handler ran twice, yet the outbox holds exactly one message for the delivery,
 * under the id derived from the consumer, the message id and the send's position: the failed run's
 * send rolled back with its transaction. Needs a JDBC store (the outbox is a table beside the
 * inbox's).
 */
final class OutboxStory {

  private static final String CONSUMER = "demo-payments";

  private final JdbcInboxStore store;
  private final DataSource dataSource;
  private final String runId;

  OutboxStory(JdbcInboxStore store, DataSource dataSource, String runId) {
    this.store = store;
    this.dataSource = dataSource;
    this.runId = runId;
  }

  SeedStory.Scenario sentOnceThoughRunTwice() throws SQLException {
    Outbox outbox = Outbox.builder(dataSource).build();
    outbox.createSchemaIfMissing();
    AtomicInteger calls = new AtomicInteger();
    List<String> sentIds = new ArrayList<>();
    try (OneCommitConsumer consumer =
        OneCommitConsumer.builder(CONSUMER, store)
            .config(
                InboxConfig.custom()
                    .retryPolicy(
                        RetryPolicy.custom()
                            .maxAttempts(3)
                            .initialDelay(Duration.ofMillis(1))
                            .jitter(0)
                            .build())
                    .build())
            .handler(
                (m, attempt, c) -> {
                  sentIds.add(
                      outbox
                          .sendsOf(attempt, c)
                          .send("payment.applied", "customer-7", m.payload()));
                  if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("the payment service timed out");
                  }
                })
            .build()) {
      Message payment =
          Message.of(
              runId + "-payment",
              "payment.requested",
              "{\"amount\":42}".getBytes(StandardCharsets.UTF_8));
      List<String> seen = new ArrayList<>();
      Outcome outcome = consumer.consume(payment);
      seen.add(outcome.status().name());
      for (int i = 0; i < 20 && outcome.status() != Outcome.Status.APPLIED; i++) {
        // The failed attempt's retry is due after its 1 ms backoff, on the database clock.
        sleepBriefly();
        outcome = consumer.consume(payment);
        seen.add(outcome.status().name());
      }
      seen.add(consumer.consume(payment).status().name());
      long rows = rowsWithId(sentIds.get(0));
      boolean sameId = sentIds.stream().distinct().count() == 1;
      boolean ok =
          calls.get() == 2
              && sameId
              && rows == 1
              && seen.get(seen.size() - 1).equals("DUPLICATE")
              && seen.contains("APPLIED");
      return new SeedStory.Scenario(
          "outbox: a message sent once",
          seen,
          calls.get(),
          store.find(CONSUMER, payment.id()).map(r -> r.attempts()).orElse(0),
          ok,
          "the handler sent payment.applied and failed, then ran again and sent it again; the"
              + " outbox holds "
              + rows
              + " message ("
              + sentIds.get(0)
              + ", the same id both times): the failed run's send rolled back with it");
    }
  }

  private long rowsWithId(String id) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM inbox_outbox WHERE message_id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
