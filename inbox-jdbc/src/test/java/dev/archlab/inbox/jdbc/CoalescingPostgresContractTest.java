package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The whole store contract suite on Postgres with coalescing on: its concurrency tests are the ones
 * where several callers share a flush.
 */
class CoalescingPostgresContractTest extends InboxStoreContractTest {

  @Override
  protected StoreFixture newFixture() {
    return new CoalescingFixture(PostgresDatabase.get(), "inbox_coalesced_contract");
  }

  @Override
  protected int stressMessageCount() {
    return 1_000;
  }
}
