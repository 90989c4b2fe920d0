package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.OutboxAdmin.Entry;
import dev.archlab.inbox.outbox.OutboxAdmin.State;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Sends from a caller's transaction, on every database the outbox can be written on. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#all")
class OutboxSendTest {

  static final String TABLE = "outbox_send";

  @Parameter OutboxDatabase db;

  Outbox outbox;

  @BeforeEach
  void freshTable() throws SQLException {
    db.drop(TABLE);
    outbox = Outbox.builder(db.dataSource()).table(TABLE).build();
    outbox.createSchemaIfMissing();
  }

  @Test
  @DisplayName("schema: created once, a second call changes nothing; the DDL names the table")
  void schemaIsIdempotent() throws SQLException {
    send(OutboxMessage.of("orders", "k", bytes("x")), true);
    outbox.createSchemaIfMissing();
    assertThat(db.count("SELECT COUNT(*) FROM " + TABLE)).isEqualTo(1);
    assertThat(outbox.schemaSql())
        .contains("CREATE TABLE IF NOT EXISTS " + TABLE + " ")
        .contains(TABLE + "_message_id_uq")
        .doesNotContain("inbox_outbox");
  }

  @Test
  @DisplayName("a committed send is PENDING with its parts, times from the database clock")
  void committedSendIsPending() throws SQLException {
    OutboxMessage m =
        new OutboxMessage(
            "order-1-created", "orders", "order-1", bytes("{\"id\":1}"), Map.of("type", "created"));
    send(m, true);
    List<Entry> pending = outbox.admin().list(State.PENDING, 10);
    assertThat(pending).hasSize(1);
    Entry e = pending.get(0);
    assertThat(e.row().id()).isEqualTo("order-1-created");
    assertThat(e.row().destination()).isEqualTo("orders");
    assertThat(e.row().key()).isEqualTo("order-1");
    assertThat(e.row().payload()).isEqualTo(bytes("{\"id\":1}"));
    assertThat(e.row().headers()).isEqualTo(Map.of("type", "created"));
    assertThat(e.row().attempts()).isZero();
    assertThat(e.sentAt()).isNull();
    assertThat(db.count("SELECT COUNT(*) FROM " + TABLE + " WHERE next_attempt_at = created_at"))
        .isEqualTo(1);
    assertThat(outbox.admin().counts()).isEqualTo(new OutboxAdmin.Counts(1, 0, 0));
    assertThat(outbox.admin().oldestPendingAge()).isPresent();
  }

  @Test
  @DisplayName("a rolled-back send leaves nothing")
  void rolledBackSendLeavesNothing() throws SQLException {
    send(OutboxMessage.of("orders", "k", bytes("x")), false);
    assertThat(db.count("SELECT COUNT(*) FROM " + TABLE)).isZero();
    assertThat(outbox.admin().oldestPendingAge()).isEmpty();
  }

  @Test
  @DisplayName("an id already in the outbox is not written again; the first message stays")
  void duplicateIdKeepsTheFirst() throws SQLException {
    OutboxMessage first = new OutboxMessage("same-id", "orders", "k", bytes("first"), null);
    assertThat(send(first, true)).isTrue();
    assertThat(send(first.withHeaders(Map.of("h", "v")), true)).isFalse();
    try (Connection c = db.dataSource().getConnection()) {
      // Inside a larger transaction the duplicate is skipped without breaking it.
      c.setAutoCommit(false);
      assertThat(outbox.send(c, new OutboxMessage("same-id", "orders", "k", bytes("x"), null)))
          .isFalse();
      assertThat(outbox.send(c, OutboxMessage.of("orders", "k", bytes("next")))).isTrue();
      c.commit();
    }
    List<Entry> rows = outbox.admin().list(State.PENDING, 10);
    assertThat(rows)
        .extracting(r -> new String(r.row().payload(), StandardCharsets.UTF_8))
        .containsExactly("first", "next");
  }

  @Test
  @DisplayName("keyless and null-payload messages are kept as such")
  void keylessTombstone() {
    send(new OutboxMessage("tomb", "orders", null, null, null), true);
    OutboxRow row = outbox.admin().list(State.PENDING, 1).get(0).row();
    assertThat(row.key()).isNull();
    assertThat(row.payload()).isNull();
    assertThat(row.headers()).isEmpty();
  }

  @Test
  @DisplayName("a relay publishes and marks the rows on every database (locks or leases)")
  void relayRunsOnEveryDatabase() {
    send(OutboxMessage.of("orders", "k", bytes("1")), true);
    send(OutboxMessage.of("orders", "k", bytes("2")), true);
    RecordingPublisher publisher = new RecordingPublisher();
    try (OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build()) {
      assertThat(relay.relayOnce()).isEqualTo(2);
      assertThat(relay.relayOnce()).isZero();
    }
    assertThat(publisher.published)
        .extracting(r -> new String(r.payload(), StandardCharsets.UTF_8))
        .containsExactly("1", "2");
    assertThat(outbox.admin().counts()).isEqualTo(new OutboxAdmin.Counts(0, 2, 0));
  }

  private boolean send(OutboxMessage m, boolean commit) {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      boolean written = outbox.send(c, m);
      if (commit) {
        c.commit();
      } else {
        c.rollback();
      }
      return written;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
