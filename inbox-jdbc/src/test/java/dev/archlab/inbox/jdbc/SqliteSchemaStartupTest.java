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
    return "main";
  }

  @Override
  String[] missingDatabase() {
    String url =
        "jdbc:sqlite:file:"
            + SqliteDatabase.get().directory().resolve("no-such-database.db")
            + "?mode=rw";
    return new String[] {url, null, null};
  }

  @Override
  boolean indexCreationWaitsForOpenTransactions() {
    return true;
  }
}
