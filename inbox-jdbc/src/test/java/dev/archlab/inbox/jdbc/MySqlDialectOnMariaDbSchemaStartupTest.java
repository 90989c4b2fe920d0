package dev.archlab.inbox.jdbc;

/**
 * Start-up on a live table through the MySQL 8 dialect (session {@code lock_wait_timeout}, saved
 * and put back), on the MariaDB server (see {@link MySqlDialectOnMariaDb}).
 */
class MySqlDialectOnMariaDbSchemaStartupTest extends MariaDbSchemaStartupTest {
  @Override
  TestDatabase database() {
    return MySqlDialectOnMariaDb.get();
  }

  /** The MariaDB tests' own database: not this variant's default one. */
  @Override
  String existingNamespace() {
    return "inbox_test";
  }
}
