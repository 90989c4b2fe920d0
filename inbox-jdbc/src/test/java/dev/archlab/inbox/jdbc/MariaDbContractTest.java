package dev.archlab.inbox.jdbc;

/** The store contract suite on MariaDb. */
class MariaDbContractTest extends AbstractJdbcContractTest {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }
}
