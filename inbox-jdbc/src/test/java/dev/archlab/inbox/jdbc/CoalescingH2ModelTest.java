package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The model test on H2 with coalescing on: every call is a flush of its own here, so this shows a
 * lone caller's answers are exactly the uncoalesced store's.
 */
class CoalescingH2ModelTest extends InboxStoreModelTest {

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
    return new CoalescingFixture(H2Database.get(), "inbox_coalesced_model");
  }
}
