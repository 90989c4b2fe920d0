package dev.archlab.inbox.jdbc;

import java.sql.SQLException;

/** Start-up on a live table, schema-qualified names and a missing database on PostgreSQL. */
class PostgresSchemaStartupTest extends AbstractSchemaStartupTest {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }

  @Override
  String lockWaitersSql() {
    return "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(*) FROM pg_indexes WHERE indexname = '"
        + index
        + "' AND schemaname = "
        + (namespace == null ? "current_schema()" : "'" + namespace + "'");
  }

  @Override
  String dropIndexSql(String table, String index) {
    int dot = table.indexOf('.');
    return "DROP INDEX " + (dot < 0 ? "" : table.substring(0, dot + 1)) + index;
  }

  @Override
  String existingNamespace() throws SQLException {
    database().execute("CREATE SCHEMA IF NOT EXISTS inbox_app");
    return "inbox_app";
  }

  @Override
  String[] missingDatabase() {
    String url = database().jdbcUrl().replaceFirst("/postgres\\?", "/no_such_database?");
    return new String[] {url, "postgres", ""};
  }

  @Override
  boolean indexCreationWaitsForOpenTransactions() {
    return true;
  }
}
