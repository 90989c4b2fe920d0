package dev.archlab.inbox.jdbc;

import java.sql.SQLException;

/** Start-up on a live table, schema-qualified names and a missing database on H2. */
class H2SchemaStartupTest extends AbstractSchemaStartupTest {
  @Override
  TestDatabase database() {
    return H2Database.get();
  }

  @Override
  String lockWaitersSql() {
    return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_NAME = UPPER('"
        + index
        + "') AND TABLE_SCHEMA = "
        + (namespace == null ? "CURRENT_SCHEMA" : "UPPER('" + namespace + "')");
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
    return new String[] {"jdbc:h2:mem:no_such_database;IFEXISTS=TRUE", "sa", ""};
  }

  @Override
  boolean indexCreationWaitsForOpenTransactions() {
    return true;
  }
}
