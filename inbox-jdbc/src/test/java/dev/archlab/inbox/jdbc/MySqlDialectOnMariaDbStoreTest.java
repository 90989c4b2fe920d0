package dev.archlab.inbox.jdbc;

/**
 * The database-only behaviour through the MySQL 8 dialect, on the MariaDB server (see {@link
 * MySqlDialectOnMariaDb}). The prune test runs on fewer rows: the one-million-row run is the
 * MariaDB dialect's, and the batch loop is the same for both.
 */
class MySqlDialectOnMariaDbStoreTest extends MariaDbStoreTest {
  @Override
  TestDatabase database() {
    return MySqlDialectOnMariaDb.get();
  }

  @Override
  int pruneRows() {
    return 50_000;
  }
}
