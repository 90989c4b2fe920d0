package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
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

  /**
   * EXPLAIN of the statement, prepared with numbered parameters and run with NULLs, after {@code
   * setup}.
   */
  private String genericPlan(String sql, String setup) throws SQLException {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("SET plan_cache_mode = force_generic_plan");
      // The claim's SET LOCAL, for this session: the pool's connection is reset below.
      st.execute(setup == null ? "RESET enable_sort" : setup.replace("SET LOCAL", "SET"));
      st.execute("DEALLOCATE ALL");
      st.execute("PREPARE relay AS " + numbered);
      StringBuilder plan = new StringBuilder();
      String args = n == 0 ? "" : "(" + String.join(", ", Collections.nCopies(n, "NULL")) + ")";
      try (ResultSet rs = st.executeQuery("EXPLAIN EXECUTE relay" + args)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      st.execute("RESET ALL");
      return plan.toString();
    }
  }
}
