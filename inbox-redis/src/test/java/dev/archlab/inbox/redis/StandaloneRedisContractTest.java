package dev.archlab.inbox.redis;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;

/** The whole store contract suite on one real Redis server. */
class StandaloneRedisContractTest extends InboxStoreContractTest {
  @Override
  protected StoreFixture newFixture() {
    return RedisStoreFixture.standalone(RedisStoreFixture.CONTRACT_BUCKETS);
  }
}
