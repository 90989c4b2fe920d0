package dev.archlab.inbox.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.jdbc.JdbcInboxOperations;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import dev.archlab.inbox.outbox.OutboxAdmin.Counts;
import dev.archlab.inbox.outbox.OutboxAdmin.State;
import dev.archlab.inbox.outbox.OutboxMessage;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRelay;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The page's outbox panel on a real outbox (an H2 database holding the inbox and the outbox
 * tables), whose DEAD row a real relay parked: the JSON routes report what the table holds, bad
 * parameters are a 400 that names them, the retry-dead action obeys the CSRF and read-only rules of
 * every action and, when carried out, puts the DEAD row back to PENDING in the database.
 */
class OutboxPanelTest {

  private final List<String> actionLog = new CopyOnWriteArrayList<>();
  private JdbcDataSource ds;
  private Outbox outbox;
  private OperatorUi withoutOutbox;
  private OperatorUi ui;

  /** Parks every row bound for {@code nowhere}, as a broker without that topic makes it. */
  private static final class ParkingPublisher implements OutboxPublisher {
    @Override
    public List<PublishResult> publish(List<OutboxRow> rows) {
      List<PublishResult> out = new ArrayList<>();
      for (OutboxRow row : rows) {
        out.add(
            row.destination().equals("nowhere")
                ? PublishResult.dead("unknown topic 'nowhere'")
                : PublishResult.sent());
      }
      return out;
    }

    @Override
    public void close() {}
  }

  /**
   * pay-1 SENT and pay-2 DEAD by a relay round, then pay-3 and pay-4 written, not yet relayed: 2
   * PENDING, 1 SENT, 1 DEAD.
   */
  @BeforeEach
  void outboxWithARowInEveryState() throws SQLException {
    ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    outbox = Outbox.builder(ds).build();
    outbox.createSchemaIfMissing();
    send(message("pay-1", "payments"), message("pay-2", "nowhere"));
    try (OutboxRelay relay = OutboxRelay.builder(outbox, new ParkingPublisher()).build()) {
      assertThat(relay.relayOnce()).isEqualTo(2);
    }
    send(message("pay-3", "payments"), message("pay-4", "payments"));
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(2, 1, 1));

    withoutOutbox =
        new OperatorUi(
            new JdbcInboxOperations(store), UiSettings.custom().actionLog(actionLog::add).build());
    ui = withoutOutbox.withOutbox(OutboxPanel.of(outbox));
  }

  private static OutboxMessage message(String id, String destination) {
    return new OutboxMessage(
        id, destination, "customer-7", "{}".getBytes(StandardCharsets.UTF_8), Map.of());
  }

  private void send(OutboxMessage... messages) throws SQLException {
    try (Connection c = ds.getConnection()) {
      for (OutboxMessage m : messages) {
        outbox.send(c, m);
      }
    }
  }

  private static UiResponse get(OperatorUi handler, String path, Map<String, String> query) {
    return handler.handle(new UiRequest("GET", path, query, Map.of(), Map.of(), "127.0.0.1"));
  }

  private static UiResponse post(OperatorUi handler, String path, Map<String, String> form) {
    return handler.handle(new UiRequest("POST", path, Map.of(), form, Map.of(), "127.0.0.1"));
  }

  private State stateOf(String id) {
    for (State s : State.values()) {
      for (OutboxAdmin.Entry e : outbox.admin().list(s, 100)) {
        if (e.row().id().equals(id)) {
          return s;
        }
      }
    }
    throw new AssertionError("no outbox row " + id);
  }

  @Test
  void statusCountsTheRowsOfTheTableByState() {
    UiResponse status = get(ui, "/api/outbox", Map.of());
    assertThat(status.status()).isEqualTo(200);
    assertThat(status.contentType()).isEqualTo("application/json; charset=utf-8");
    assertThat(status.bodyText())
        .startsWith(
            "{\"available\":true,\"table\":\"inbox_outbox\",\"pending\":2,\"sent\":1,\"dead\":1,"
                + "\"oldestPendingMillis\":")
        .doesNotContain("\"oldestPendingMillis\":null");
  }

  @Test
  void rowsOfAStateComeInPublishOrderWithTheReasonARowWasParked() {
    UiResponse dead = get(ui, "/api/outbox/rows", Map.of("state", "dead"));
    assertThat(dead.status()).isEqualTo(200);
    // Attempts are the relay's count, pinned down by its own tests, so not asserted here.
    assertThat(dead.bodyText())
        .startsWith(
            "{\"available\":true,\"state\":\"DEAD\",\"rows\":[{\"messageId\":\"pay-2\","
                + "\"destination\":\"nowhere\",\"key\":\"customer-7\",\"state\":\"DEAD\","
                + "\"attempts\":")
        .contains(",\"lastError\":\"unknown topic 'nowhere'\",\"createdAt\":\"")
        .contains("\"sentAt\":null}]}")
        .doesNotContain("pay-1", "pay-3");
    UiResponse pending = get(ui, "/api/outbox/rows", Map.of("state", "PENDING", "limit", "1"));
    assertThat(pending.bodyText()).contains("\"messageId\":\"pay-3\"").doesNotContain("pay-4");
  }

  @Test
  void badStateOrLimitIsA400ThatNamesIt() {
    UiResponse state = get(ui, "/api/outbox/rows", Map.of("state", "LOST"));
    assertThat(state.status()).isEqualTo(400);
    assertThat(state.bodyText())
        .isEqualTo("{\"error\":\"unknown outbox state 'LOST': use PENDING, SENT or DEAD\"}");
    UiResponse missing = get(ui, "/api/outbox/rows", Map.of());
    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.bodyText()).contains("missing parameter 'state'");
    for (String limit : new String[] {"0", "1001", "ten"}) {
      UiResponse r = get(ui, "/api/outbox/rows", Map.of("state", "DEAD", "limit", limit));
      assertThat(r.status()).as(limit).isEqualTo(400);
      assertThat(r.bodyText()).contains("limit must be a whole number from 1 to 1000");
    }
    assertThat(get(ui, "/api/outbox/retry-dead", Map.of()).status()).isEqualTo(405);
  }

  @Test
  void retryDeadPutsTheRowBackToPendingInTheDatabaseAndLogsIt() {
    String csrf = ui.settings().csrfToken();
    UiResponse done = post(ui, "/api/outbox/retry-dead", Map.of("id", "pay-2", "csrf", csrf));
    assertThat(done.status()).as(done.bodyText()).isEqualTo(200);
    assertThat(done.bodyText()).contains("DEAD outbox row pay-2 is PENDING again");
    assertThat(stateOf("pay-2")).isEqualTo(State.PENDING);
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(3, 1, 0));
    assertThat(actionLog)
        .first()
        .isEqualTo(
            "inbox ui: 127.0.0.1 POST /api/outbox/retry-dead DEAD outbox row pay-2 is PENDING"
                + " again: the relay publishes it before the later rows of its key");

    // It is no longer DEAD: a second retry finds nothing and changes nothing.
    UiResponse again = post(ui, "/api/outbox/retry-dead", Map.of("id", "pay-2", "csrf", csrf));
    assertThat(again.status()).isEqualTo(404);
    assertThat(again.bodyText())
        .contains("no DEAD row with message id 'pay-2' in outbox inbox_outbox, nothing changed");
    assertThat(actionLog)
        .last()
        .asString()
        .contains("POST /api/outbox/retry-dead id=pay-2 failed: no DEAD row with message id");
    UiResponse pending = post(ui, "/api/outbox/retry-dead", Map.of("id", "pay-3", "csrf", csrf));
    assertThat(pending.status()).isEqualTo(404);
    assertThat(stateOf("pay-3")).isEqualTo(State.PENDING);
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(3, 1, 0));
  }

  @Test
  void retryAllPutsEveryDeadRowBack() throws SQLException {
    send(message("pay-5", "nowhere"));
    try (OutboxRelay relay = OutboxRelay.builder(outbox, new ParkingPublisher()).build()) {
      relay.relayOnce();
    }
    assertThat(outbox.admin().counts().dead()).isEqualTo(2);
    UiResponse all = post(ui, "/api/outbox/retry-dead", Map.of("csrf", ui.settings().csrfToken()));
    assertThat(all.status()).as(all.bodyText()).isEqualTo(200);
    assertThat(all.bodyText()).contains("2 DEAD outbox row(s) of inbox_outbox are PENDING again");
    assertThat(outbox.admin().counts().dead()).isZero();
    assertThat(stateOf("pay-2")).isEqualTo(State.PENDING);
    assertThat(stateOf("pay-5")).isEqualTo(State.PENDING);
  }

  @Test
  void retryDeadWithoutTheCsrfTokenOrOnAReadOnlyPageIsRefusedAndChangesNothing() {
    UiResponse forged = post(ui, "/api/outbox/retry-dead", Map.of("id", "pay-2"));
    assertThat(forged.status()).isEqualTo(403);
    assertThat(forged.bodyText()).contains("missing or wrong CSRF token");
    UiResponse wrong =
        post(ui, "/api/outbox/retry-dead", Map.of("id", "pay-2", "csrf", "0".repeat(64)));
    assertThat(wrong.status()).isEqualTo(403);

    OperatorUi readOnly =
        new OperatorUi(
                new JdbcInboxOperations(JdbcInboxStore.builder(ds).build()),
                UiSettings.custom().readOnly(true).actionLog(actionLog::add).build())
            .withOutbox(OutboxPanel.of(outbox));
    UiResponse refused =
        post(
            readOnly,
            "/api/outbox/retry-dead",
            Map.of("id", "pay-2", "csrf", readOnly.settings().csrfToken()));
    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.bodyText()).contains("read-only");

    assertThat(stateOf("pay-2")).isEqualTo(State.DEAD);
    assertThat(actionLog)
        .containsExactly(
            "inbox ui: 127.0.0.1 POST /api/outbox/retry-dead refused: missing or wrong CSRF token",
            "inbox ui: 127.0.0.1 POST /api/outbox/retry-dead refused: missing or wrong CSRF token",
            "inbox ui: 127.0.0.1 POST /api/outbox/retry-dead refused: read-only");
  }

  @Test
  void withoutAnOutboxTheRoutesAreUnavailableAndTheActionChangesNothing() {
    assertThat(get(withoutOutbox, "/api/outbox", Map.of()).bodyText())
        .isEqualTo("{\"available\":false}");
    UiResponse rows = get(withoutOutbox, "/api/outbox/rows", Map.of("state", "DEAD"));
    assertThat(rows.status()).isEqualTo(200);
    assertThat(rows.bodyText()).isEqualTo("{\"available\":false}");
    UiResponse retry =
        post(
            withoutOutbox,
            "/api/outbox/retry-dead",
            Map.of("id", "pay-2", "csrf", withoutOutbox.settings().csrfToken()));
    assertThat(retry.status()).isEqualTo(404);
    assertThat(retry.bodyText()).contains("this page was given no outbox");
    assertThat(stateOf("pay-2")).isEqualTo(State.DEAD);
    assertThat(actionLog)
        .singleElement()
        .asString()
        .startsWith(
            "inbox ui: 127.0.0.1 POST /api/outbox/retry-dead id=pay-2 failed: this page was")
        .endsWith("nothing changed");
  }

  @Test
  void withOutboxKeepsTheSettingsAndLeavesTheOriginalHandlerAsItWas() {
    assertThat(ui.settings()).isSameAs(withoutOutbox.settings());
    assertThat(get(ui, "/", Map.of()).bodyText())
        .isEqualTo(get(withoutOutbox, "/", Map.of()).bodyText())
        .contains("id=\"outbox\" hidden");
    assertThat(get(withoutOutbox, "/api/outbox", Map.of()).bodyText())
        .isEqualTo("{\"available\":false}");
    assertThat(get(ui, "/api/overview", Map.of()).bodyText()).contains("\"consumers\":[]");
  }
}
