package dev.archlab.inbox.jdbc;

/** The store contract suite on Postgres. */
class PostgresContractTest extends AbstractJdbcContractTest {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }
}
