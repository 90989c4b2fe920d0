package dev.archlab.inbox.jdbc;

/** The store contract suite on SQLite (one file, several pooled connections). */
class SqliteContractTest extends AbstractJdbcContractTest {
  @Override
  TestDatabase database() {
    return SqliteDatabase.get();
  }
}
