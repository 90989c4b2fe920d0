package dev.archlab.inbox.redis;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The model test on one real Redis server. The server's clock moves in real time ({@link
 * #storeClockMovesOnItsOwn()}), so every call is bracketed with readings of it; moving time shifts
 * the fixture's stored times back.
 */
class StandaloneRedisModelTest extends InboxStoreModelTest {
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
    return RedisStoreFixture.standalone(RedisStoreFixture.MODEL_BUCKETS);
  }
}
