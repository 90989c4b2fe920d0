package dev.archlab.inbox.jdbc;

/** The store contract suite through the MySQL 8 dialect, on the MariaDB server. */
class MySqlDialectOnMariaDbContractTest extends AbstractJdbcContractTest {
  @Override
  TestDatabase database() {
    return MySqlDialectOnMariaDb.get();
  }
}
