package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.MutableClock;
import dev.archlab.inbox.testkit.StoreFixture;
import java.time.Duration;

// tag::fixture[]
/** One empty {@link CountingInboxStore} over a memory store whose clock the tests move. */
final class CountingStoreFixture implements StoreFixture {

  private final MutableClock clock = new MutableClock();
  private final CountingInboxStore store = new CountingInboxStore(new MemoryInboxStore(clock));

  @Override
  public InboxStore store() {
    return store;
  }

  @Override
  public void advanceTime(Duration duration) {
    clock.advance(duration);
  }
}
// end::fixture[]
