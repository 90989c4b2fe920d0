package dev.archlab.inbox.jdbc;

import java.sql.SQLException;

/** The database-only behaviour on SQLite. */
class SqliteStoreTest extends AbstractJdbcStoreTest {
  @Override
  TestDatabase database() {
    return SqliteDatabase.get();
  }

  @Override
  String pastTimeLiteral() {
    return "1577836800000"; // 2020-01-01T00:00:00Z in epoch milliseconds
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    long dayMillis = 86_400_000L;
    database()
        .execute(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < "
                + rows
                + ") INSERT INTO "
                + table
                + " (consumer, message_id, state, attempts, created_at, updated_at)"
                + " SELECT 'old', 'old-' || x, 'DONE', 1,"
                + " CAST(unixepoch('subsec') * 1000 AS INTEGER) - "
                + dayMillis
                + ", CAST(unixepoch('subsec') * 1000 AS INTEGER) - "
                + dayMillis
                + " FROM n");
  }
}
