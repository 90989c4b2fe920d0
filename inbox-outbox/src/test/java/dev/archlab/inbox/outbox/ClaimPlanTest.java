package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a relay round may publish, read from real tables: each key's earliest unsent row if due, the
 * due rows after it up to one in backoff, keyless rows on their own, across several windows.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#all")
class ClaimPlanTest {

  static final String TABLE = "plan_outbox";

  @Parameter OutboxDatabase db;

  Outbox outbox;

  @BeforeEach
  void freshTable() throws SQLException {
    db.drop(TABLE);
    outbox = Outbox.builder(db.dataSource()).table(TABLE).build();
    outbox.createSchemaIfMissing();
  }

  @Test
  @DisplayName("heads and their due successors in seq order, read a window of two rows at a time")
  void headsAndSuccessorsAcrossWindows() throws SQLException {
    send("a1", "k1", "b1", "k2", "a2", "k1", "n1", null, "c1", "k3", "c2", "k3", "a3", "k1");
    backoff("c1");

    assertThat(plan(100, 2))
        .containsExactly("a1 head", "b1 head", "a2 after a1", "n1 head", "a3 after a1");
  }

  @Test
  @DisplayName("a row in backoff holds back the later rows of its key, not the earlier ones")
  void backoffEndsTheRun() throws SQLException {
    send("a1", "k1", "a2", "k1", "a3", "k1", "b1", "k2");
    backoff("a2");

    assertThat(plan(100, 100)).containsExactly("a1 head", "b1 head");
  }

  @Test
  @DisplayName("a sent row is no head, and a DEAD row holds nothing back")
  void sentAndDeadRowsAreNotHeads() throws SQLException {
    send("a1", "k1", "a2", "k1", "b1", "k2", "b2", "k2");
    db.execute(
        "UPDATE "
            + TABLE
            + " SET state = 'SENT', sent_at = "
            + db.now()
            + " WHERE message_id = 'a1'");
    db.execute("UPDATE " + TABLE + " SET state = 'DEAD' WHERE message_id = 'b1'");

    assertThat(plan(100, 100)).containsExactly("a2 head", "b2 head");
  }

  @Test
  @DisplayName("rows in backoff at the front are read past to due rows behind them")
  void readsPastRowsInBackoff() throws SQLException {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      rows.add("x" + i);
      rows.add("kx" + i);
    }
    rows.add("y");
    rows.add("ky");
    send(rows.toArray(new String[0]));
    for (int i = 0; i < 6; i++) {
      backoff("x" + i);
    }

    assertThat(plan(100, 2)).containsExactly("y head");
  }

  @Test
  @DisplayName("stops at the wanted number of rows; nothing at all when no row is due")
  void wantedRowsThenNothingDue() throws SQLException {
    send("a1", "k1", "a2", "k1", "b1", "k2");

    assertThat(plan(2, 100)).containsExactly("a1 head", "a2 after a1");

    for (String id : List.of("a1", "a2", "b1")) {
      backoff(id);
    }
    assertThat(plan(100, 100)).isEmpty();
  }

  /**
   * The plan as "id head" or "id after head-id", for {@code wanted} rows read {@code window} at a
   * time.
   */
  private List<String> plan(int wanted, int window) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection()) {
      ClaimPlan plan = ClaimPlan.read(c, outbox.statements(), wanted, window);
      for (ClaimPlan.Candidate candidate : plan.candidates()) {
        String id = idOf(c, candidate.seq());
        out.add(candidate.isHead() ? id + " head" : id + " after " + idOf(c, candidate.head()));
      }
    }
    return out;
  }

  private String idOf(Connection c, long seq) throws SQLException {
    try (var ps = c.prepareStatement("SELECT message_id FROM " + TABLE + " WHERE seq = ?")) {
      ps.setLong(1, seq);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private void backoff(String id) throws SQLException {
    db.execute(
        "UPDATE "
            + TABLE
            + " SET next_attempt_at = "
            + db.hoursLater("next_attempt_at", 1)
            + " WHERE message_id = '"
            + id
            + "'");
  }

  /** Sends one message per (id, key) pair in order, to one destination, in one transaction. */
  private void send(String... idsAndKeys) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < idsAndKeys.length; i += 2) {
        outbox.send(
            c,
            new OutboxMessage(
                idsAndKeys[i],
                "plans",
                idsAndKeys[i + 1],
                "p".getBytes(StandardCharsets.UTF_8),
                null));
      }
      c.commit();
    }
  }
}
