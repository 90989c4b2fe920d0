package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.testkit.PostgresPlans;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No statement that finds rows by their key reaches them through the (state, updated_at) index or
 * through a join, even in a plan PostgreSQL makes while the table has no statistics (a new or just
 * truncated table) and keeps for a prepared statement. Such plans once sought "state =
 * 'PROCESSING'" through the state index and walked every PROCESSING row per completion (with a
 * poll's 500 claims open, a third of the per-message Kafka mode's server CPU), and joined a batch's
 * claims as if they met one row, rescanning every claim for each row (57 ms per 500-claim batch at
 * 60 000 rows). Generic plans are forced, so the check does not depend on when PostgreSQL would
 * switch to one.
 */
class PostgresKeyedPlanTest {

  static final String TABLE = "inbox_plan";

  JdbcInboxStore store;

  @BeforeEach
  void freshTable() throws SQLException {
    TestDatabases.assumeSelected("postgresql");
    PostgresDatabase db = PostgresDatabase.get();
    db.execute("DROP TABLE IF EXISTS " + TABLE);
    store = db.freshStore(TABLE);
    // A small table in both states, as a new one is when its statements are first planned (a
    // prepared statement keeps that plan as the table grows); no ANALYZE ever runs.
    db.execute(
        "INSERT INTO "
            + TABLE
            + " SELECT 'c', 'id-' || g, CASE WHEN g % 10 = 0 THEN 'PROCESSING' ELSE 'DONE' END,"
            + " 1, now(), now(), now(), NULL, NULL, NULL FROM generate_series(1, 2000) g");
  }

  @Test
  void keyedStatementsNeverSeekTheStateIndexInAGenericPlanOnATableWithNoStatistics()
      throws Exception {
    StatementLog log = new StatementLog(PostgresDatabase.get().dataSource());
    Map<String, String> keyed = new LinkedHashMap<>();
    try (Connection c = log.dataSource().getConnection()) {
      Statements s = store.jdbc.statementsFor(c);
      keyed.put("takeover", s.takeover);
      keyed.put("complete", s.complete.plain());
      keyed.put("complete returning", s.complete.returning());
      keyed.put("fail", s.fail.returning());
      keyed.put("mark dead", s.markDead.returning());
      keyed.put("extend", s.extend.returning());
      keyed.put("release", s.release);
      keyed.put("unclaim first", s.unclaimFirst);
      keyed.put("keep result", s.keepResult);
      c.setAutoCommit(false);
      s.batchComplete(c, List.of(new Claim("c", "id-10", 1, Instant.now())));
      c.rollback();
    }
    keyed.put(
        "batch complete",
        log.statements().stream()
            .filter(t -> t.contains("AS t SET state = 'DONE'"))
            .findFirst()
            .orElseThrow());

    String stateIndex = store.jdbc.statements().indexName;
    List<String> wrong = new ArrayList<>();
    try (Connection c = PostgresDatabase.get().dataSource().getConnection();
        Statement st = c.createStatement()) {
      for (Map.Entry<String, String> e : keyed.entrySet()) {
        String plan = PostgresPlans.generic(st, e.getValue());
        if (plan.contains(stateIndex)) {
          wrong.add(e.getKey() + ":\n" + plan);
        }
        // A join with the batch's claims was planned as if it met one row, and rescanned
        // every claim for each row it met: no statement here joins anything.
        if (plan.contains("Join") || plan.contains("Nested Loop")) {
          wrong.add(e.getKey() + " joins:\n" + plan);
        }
      }
    }
    assertThat(wrong).as("keyed statements planned through the state index, or joined").isEmpty();
  }
}
