package dev.archlab.inbox.testkit;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;

/** The model test of {@link InboxStoreModelTest}, run on {@link MemoryInboxStore}. */
class MemoryInboxStoreModelTest extends InboxStoreModelTest {

  @Override
  protected StoreFixture newFixture() {
    MutableClock clock = new MutableClock();
    MemoryInboxStore store = new MemoryInboxStore(clock);
    return new StoreFixture() {
      @Override
      public InboxStore store() {
        return store;
      }

      @Override
      public void advanceTime(Duration duration) {
        clock.advance(duration);
      }
    };
  }
}
