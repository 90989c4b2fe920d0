package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The whole store contract suite on one real database. Each test gets the same table, emptied;
 * moving time shifts every stored timestamp back, which is the same as the database clock moving
 * forward for every comparison the store makes.
 */
abstract class AbstractJdbcContractTest extends InboxStoreContractTest {

  static final String TABLE = "inbox_contract";

  abstract TestDatabase database();

  @Override
  protected StoreFixture newFixture() {
    return database().fixture(TABLE);
  }

  @Override
  protected int stressMessageCount() {
    return 1_000;
  }
}
