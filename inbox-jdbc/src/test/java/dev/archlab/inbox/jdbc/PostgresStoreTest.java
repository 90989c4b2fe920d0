package dev.archlab.inbox.jdbc;

import java.sql.SQLException;

/** The database-only behaviour on PostgreSQL. */
class PostgresStoreTest extends AbstractJdbcStoreTest {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    database()
        .execute(
            "INSERT INTO "
                + table
                + " (consumer, message_id, state, attempts, created_at, updated_at)"
                + " SELECT 'old', 'old-' || g, 'DONE', 1,"
                + " now() - INTERVAL '1 day', now() - INTERVAL '1 day'"
                + " FROM generate_series(1, "
                + rows
                + ") AS g");
    database().execute("ANALYZE " + table);
  }
}
