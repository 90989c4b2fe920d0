package dev.archlab.inbox.jdbc;

import org.junit.jupiter.api.Assumptions;

/**
 * Start-up on a live table, schema-qualified names and a missing database on SQLite. SQLite's
 * schemas are its attached databases; {@code main} is always there.
 */
class SqliteSchemaStartupTest extends AbstractSchemaStartupTest {
  @Override
  TestDatabase database() {
    return SqliteDatabase.get();
  }

  @Override
  String lockWaitersSql() {
    Assumptions.abort("SQLite cannot list the connections that wait for its lock");
    return null;
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(*) FROM "
        + (namespace == null ? "main" : namespace)
        + ".sqlite_master WHERE type = 'index' AND name = '"
        + index
        + "'";
  }

  @Override
  String dropIndexSql(String table, String index) {
    int dot = table.indexOf('.');
    return "DROP INDEX " + (dot < 0 ? "" : table.substring(0, dot + 1)) + index;
  }

  @Override
  String existingNamespace() {
    Assumptions.abort(
        "SQLite's CREATE INDEX qualifies the index, not the table: schema-qualified inbox tables"
            + " are not supported on SQLite");
    return null;
  }

  @Override
  String[] missingDatabase() {
    Assumptions.abort(
        "SQLite creates a missing database file; a missing directory is SqliteStoreTest's"
            + " unreachableDatabase");
    return null;
  }

  @Override
  boolean indexCreationWaitsForOpenTransactions() {
    return true;
  }
}
