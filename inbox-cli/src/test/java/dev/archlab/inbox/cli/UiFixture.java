package dev.archlab.inbox.cli;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxMessage;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRelay;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import dev.archlab.inbox.store.BeginRequest;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An H2 file database holding records in every state, for the tests of {@code inbox ui}: consumer
 * {@code billing} has a PROCESSING record with a live lease ({@code live-1}, leased for an hour),
 * one whose lease expired ({@code stuck-1}), a DONE record ({@code done-1}), one DONE past a week's
 * retention ({@code done-old}) and a DEAD one ({@code dead-1}); consumer {@code shipping} has one
 * DEAD record ({@code dead-2}) and one DONE.
 */
final class UiFixture {

  static final String TABLE = "ui_inbox";

  final String url;
  final JdbcInboxStore store;

  private UiFixture(String url) {
    this.url = url;
    org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
    ds.setURL(url);
    this.store = JdbcInboxStore.builder(ds).table(TABLE).build();
  }

  /** Creates the table through {@code inbox migrate} and the records in every state. */
  static UiFixture seeded(java.nio.file.Path dir, String name) throws SQLException {
    String url = "jdbc:h2:file:" + dir.resolve(name) + ";AUTO_SERVER=TRUE";
    Cli.Result migrate = Cli.run("migrate", "--db", url, "--table", TABLE);
    if (migrate.code() != 0) {
      throw new AssertionError(migrate.toString());
    }
    UiFixture f = new UiFixture(url);
    f.store.complete(f.claim("billing", "done-1", Duration.ofMinutes(5)), null);
    f.store.complete(f.claim("billing", "done-old", Duration.ofMinutes(5)), null);
    f.store.markDead(f.claim("billing", "dead-1", Duration.ofMinutes(5)), "card declined: 402");
    f.claim("billing", "stuck-1", Duration.ofMinutes(5));
    f.claim("billing", "live-1", Duration.ofHours(1));
    f.store.markDead(f.claim("shipping", "dead-2", Duration.ofMinutes(5)), "no such address");
    f.store.complete(f.claim("shipping", "done-2", Duration.ofMinutes(5)), null);
    // done-old finished ten days ago; stuck-1's owner died a minute ago.
    f.sql(
        "UPDATE "
            + TABLE
            + " SET updated_at = DATEADD('DAY', -10, updated_at) WHERE message_id = 'done-old'");
    f.sql(
        "UPDATE "
            + TABLE
            + " SET lease_until = DATEADD('MINUTE', -1, CURRENT_TIMESTAMP)"
            + " WHERE message_id = 'stuck-1'");
    return f;
  }

  /**
   * Creates the outbox table {@code inbox_outbox} beside the records if it is missing, empties it,
   * and has a relay round park {@code pay-2} as DEAD ({@code unknown topic 'nowhere'}) and publish
   * {@code pay-1}; {@code pay-3} is written after it: 1 PENDING, 1 SENT, 1 DEAD.
   */
  Outbox withOutbox() throws SQLException {
    org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
    ds.setURL(url);
    Outbox outbox = Outbox.builder(ds).build();
    outbox.createSchemaIfMissing();
    sql("DELETE FROM inbox_outbox");
    try (Connection c = ds.getConnection()) {
      outbox.send(c, outgoing("pay-1", "payments"));
      outbox.send(c, outgoing("pay-2", "nowhere"));
    }
    OutboxPublisher parking =
        new OutboxPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxRow> rows) {
            return rows.stream()
                .map(
                    r ->
                        r.destination().equals("nowhere")
                            ? PublishResult.dead("unknown topic 'nowhere'")
                            : PublishResult.sent())
                .toList();
          }

          @Override
          public void close() {}
        };
    try (OutboxRelay relay = OutboxRelay.builder(outbox, parking).build()) {
      relay.relayOnce();
    }
    try (Connection c = ds.getConnection()) {
      outbox.send(c, outgoing("pay-3", "payments"));
    }
    return outbox;
  }

  private static OutboxMessage outgoing(String id, String destination) {
    return new OutboxMessage(
        id, destination, "customer-7", "{}".getBytes(StandardCharsets.UTF_8), Map.of());
  }

  String[] dbOptions() {
    return new String[] {"--db", url, "--table", TABLE};
  }

  Claim claim(String consumer, String id, Duration lease) {
    return store.begin(new BeginRequest(consumer, id, lease, 5, null)).claim();
  }

  Optional<InboxRecord> find(String consumer, String id) {
    return store.find(consumer, id);
  }

  void sql(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
