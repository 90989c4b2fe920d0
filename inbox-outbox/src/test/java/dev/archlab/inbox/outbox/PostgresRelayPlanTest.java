package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.testkit.PostgresPlans;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's reads reach their rows through the index made for them, in a plan PostgreSQL makes
 * while the table has no statistics (a new or truncated table) and keeps for a prepared statement.
 * A claim that found heads with an anti-join over every due row ran at 200 rows/s on a fresh table
 * with a 20 000-row backlog; the window read must walk the unsent rows in seq order and stop, never
 * sort them all. Generic plans are forced, so the check does not depend on when PostgreSQL would
 * switch to one.
 */
class PostgresRelayPlanTest {

  static final String TABLE = "plan_check_outbox";

  OutboxDatabase db;
  Outbox outbox;

  @BeforeEach
  void freshTable() throws SQLException {
    db = OutboxDatabase.postgres();
    db.drop(TABLE);
    outbox = Outbox.builder(db.dataSource()).table(TABLE).build();
    outbox.createSchemaIfMissing();
    // Mostly SENT rows, as a table is between prunes, and some PENDING ones; no ANALYZE ever runs.
    db.execute(
        "INSERT INTO "
            + TABLE
            + " (message_id, destination, message_key, state, attempts, next_attempt_at,"
            + " created_at, sent_at) SELECT 'id-' || g, 'd', 'k' || (g % 50),"
            + " CASE WHEN g % 100 = 0 THEN 'PENDING' ELSE 'SENT' END, 0, now(), now(),"
            + " CASE WHEN g % 100 = 0 THEN NULL ELSE now() END FROM generate_series(1, 50000) g");
  }

  @Test
  void theWindowWalksTheOrderIndexAndSortsNothingInTheClaimsTransaction() throws SQLException {
    String setup = outbox.statements().beforeClaim();
    assertThat(genericPlan(outbox.statements().window, setup))
        .contains(TABLE + "_order_idx")
        .doesNotContain("Sort");
    analyze();
    assertThat(genericPlan(outbox.statements().window, setup))
        .contains(TABLE + "_order_idx")
        .doesNotContain("Sort");
  }

  @Test
  void withStatisticsTheDueTestSeeksItsIndexAndThePruneDeletesByKey() throws SQLException {
    analyze();
    assertThat(genericPlan(outbox.statements().anyDue, null)).contains(TABLE + "_due_idx");
    // The batch is found first, then deleted by primary key, never by a join that scans the table.
    assertThat(genericPlan(outbox.statements().prune, null))
        .contains(TABLE + "_pk")
        .doesNotContain("Join");
  }

  @Test
  void rowsFoundBySeqOrIdAreReachedByTheirKeyAlone() throws SQLException {
    OutboxStatements sql = outbox.statements();
    String[] keyed = {
      sql.lockHeads(3),
      sql.rowsIn(3),
      sql.markSent(3),
      sql.markRetry,
      sql.markDead,
      sql.leaseClaim,
      sql.leaseSent,
      sql.retryDead
    };
    for (String statement : keyed) {
      assertThat(genericPlan(statement, sql.beforeClaim()))
          .as(statement)
          .doesNotContain(TABLE + "_order_idx")
          .doesNotContain(TABLE + "_due_idx");
    }
  }

  private void analyze() throws SQLException {
    db.execute("ANALYZE " + TABLE);
  }

  /** The generic plan of {@code sql} after {@code setup} (null for none). */
  private String genericPlan(String sql, String setup) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      // The claim's SET LOCAL, for this session: the pool's connection is reset below.
      st.execute(setup == null ? "RESET enable_sort" : setup.replace("SET LOCAL", "SET"));
      String plan = PostgresPlans.generic(st, sql);
      st.execute("RESET ALL");
      return plan;
    }
  }
}
