package dev.archlab.inbox.jdbc;

/** The store contract suite on H2. */
class H2ContractTest extends AbstractJdbcContractTest {
  @Override
  TestDatabase database() {
    return H2Database.get();
  }
}
