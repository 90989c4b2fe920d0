package dev.archlab.inbox.redis;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.LongRun;
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

  /**
   * 60 seeds in CI, 100 with {@code -Dinbox.test.long=true}: the standalone model test runs the
   * same scripts with its own seeds, so the cluster's share is what a cluster changes (keys spread
   * over masters, each deciding by its own clock); 60 still reach every outcome the coverage check
   * asks for. More by hand with -D.
   */
  @Override
  protected int seeds() {
    return LongRun.pick(60, 100);
  }

  @Override
  protected StoreFixture newFixture() {
    return RedisStoreFixture.cluster(RedisStoreFixture.MODEL_BUCKETS);
  }
}
