package dev.archlab.inbox.jdbc;

import java.sql.SQLException;

/** The database-only behaviour on MariaDB. */
class MariaDbStoreTest extends AbstractJdbcStoreTest {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    // seq_1_to_N is MariaDB's built-in sequence table.
    database()
        .execute(
            "INSERT INTO "
                + table
                + " (consumer, message_id, state, attempts, created_at, updated_at)"
                + " SELECT 'old', CONCAT('old-', seq), 'DONE', 1,"
                + " UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) - INTERVAL 1 DAY"
                + " FROM seq_1_to_"
                + rows);
  }
}
