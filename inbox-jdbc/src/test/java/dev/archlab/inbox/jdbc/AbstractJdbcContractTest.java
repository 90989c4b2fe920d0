package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;
import java.time.Duration;

/**
 * The whole store contract suite on one real database. Each test gets the same table, emptied;
 * moving time shifts every stored timestamp back, which is the same as the database clock moving
 * forward for every comparison the store makes.
 */
abstract class AbstractJdbcContractTest extends InboxStoreContractTest {

  static final String TABLE = "inbox_contract";

  abstract TestDatabase database();

  @Override
  protected StoreFixture newFixture() throws Exception {
    TestDatabase db = database();
    JdbcInboxStore store = db.freshStore(TABLE);
    return new StoreFixture() {
      @Override
      public InboxStore store() {
        return store;
      }

      @Override
      public void advanceTime(Duration duration) {
        db.shiftTime(TABLE, duration);
      }
    };
  }

  @Override
  protected int stressMessageCount() {
    return 1_000;
  }
}
