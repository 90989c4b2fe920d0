package dev.archlab.inbox.jdbc;

import java.sql.SQLException;

/** The database-only behaviour on H2. */
class H2StoreTest extends AbstractJdbcStoreTest {
  @Override
  TestDatabase database() {
    return H2Database.get();
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    database()
        .execute(
            "INSERT INTO "
                + table
                + " (consumer, message_id, state, attempts, created_at, updated_at)"
                + " SELECT 'old', 'old-' || X, 'DONE', 1,"
                + " DATEADD(DAY, -1, CURRENT_TIMESTAMP(6)), DATEADD(DAY, -1, CURRENT_TIMESTAMP(6))"
                + " FROM SYSTEM_RANGE(1, "
                + rows
                + ")");
  }
}
