package dev.archlab.inbox.redis;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The model test on a real Redis Cluster. Each slot's master decides by its own clock and {@code
 * currentTime} reads one node's: on this one machine they are the same clock, which the bracketing
 * of every call with clock readings needs.
 */
class ClusterRedisModelTest extends InboxStoreModelTest {
  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  /** Enough seeds to reach every outcome (the coverage check); more by hand with -D. */
  @Override
  protected int seeds() {
    return 100;
  }

  @Override
  protected StoreFixture newFixture() {
    return RedisStoreFixture.cluster(RedisStoreFixture.MODEL_BUCKETS);
  }
}
