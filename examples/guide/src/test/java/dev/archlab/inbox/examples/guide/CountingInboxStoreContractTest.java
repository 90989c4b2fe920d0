package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;

/** The whole contract suite on the guide's decorator: a store that passes it keeps the contract. */
// tag::contract[]
class CountingInboxStoreContractTest extends InboxStoreContractTest {
  @Override
  protected StoreFixture newFixture() {
    return new CountingStoreFixture();
  }
}
// end::contract[]
