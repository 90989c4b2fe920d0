package dev.archlab.inbox.redis;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;

/** The whole store contract suite on a real Redis Cluster: three masters, three replicas. */
class ClusterRedisContractTest extends InboxStoreContractTest {
  @Override
  protected StoreFixture newFixture() {
    return RedisStoreFixture.cluster(RedisStoreFixture.CONTRACT_BUCKETS);
  }
}
