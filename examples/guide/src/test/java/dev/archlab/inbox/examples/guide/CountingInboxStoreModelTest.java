package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/** The seeded model test on the guide's decorator, every answer checked against the model. */
// tag::model[]
class CountingInboxStoreModelTest extends InboxStoreModelTest {
  @Override
  protected StoreFixture newFixture() {
    return new CountingStoreFixture();
  }
}
// end::model[]
