package dev.archlab.inbox.jdbc;

/** Start-up on a live table, schema-qualified names and a missing database on MariaDB. */
class MariaDbSchemaStartupTest extends AbstractSchemaStartupTest {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }

  @Override
  String lockWaitersSql() {
    return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for%lock%'";
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(DISTINCT TABLE_NAME) FROM information_schema.STATISTICS"
        + " WHERE INDEX_NAME = '"
        + index
        + "' AND TABLE_SCHEMA = "
        + (namespace == null ? "DATABASE()" : "'" + namespace + "'");
  }

  @Override
  String dropIndexSql(String table, String index) {
    return "DROP INDEX " + index + " ON " + table;
  }

  @Override
  String existingNamespace() {
    return MariaDbDatabase.MYSQL_DIALECT_SCHEMA;
  }

  @Override
  String[] missingDatabase() {
    MariaDbDatabase db = MariaDbDatabase.get();
    // The user may use this database, so the server answers "unknown database", not "denied".
    return new String[] {
      "jdbc:mariadb://127.0.0.1:" + db.port() + "/" + absentNamespace(), db.user(), db.password()
    };
  }

  @Override
  boolean indexCreationWaitsForOpenTransactions() {
    return true;
  }
}
