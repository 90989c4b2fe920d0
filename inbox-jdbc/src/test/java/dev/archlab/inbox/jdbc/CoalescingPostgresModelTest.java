package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The model test on Postgres with coalescing on: every call is a flush of its own here, so this
 * shows a lone caller's answers are exactly the uncoalesced store's.
 */
class CoalescingPostgresModelTest extends InboxStoreModelTest {

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected int seeds() {
    return 150;
  }

  @Override
  protected StoreFixture newFixture() {
    return new CoalescingFixture(PostgresDatabase.get(), "inbox_coalesced_model");
  }
}
