package dev.archlab.inbox.testkit;

import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;

/**
 * One empty store under test plus a way to move its clock. A store with its own clock (a database's
 * {@code now()}) can implement {@link #advanceTime} by shifting every stored timestamp back by the
 * duration, which is the same as the clock moving forward for every comparison the store makes.
 */
public interface StoreFixture extends AutoCloseable {

  /**
   * The store under test; empty when the fixture is created.
   *
   * @return the same store on every call
   */
  InboxStore store();

  /**
   * Moves the store's notion of "now" forward by {@code duration}.
   *
   * @param duration how far to move the clock forward
   */
  void advanceTime(Duration duration);

  /**
   * Releases what the fixture opened (connections, tables). Does nothing by default.
   *
   * @throws Exception if releasing failed; the test that used the fixture fails with it
   */
  @Override
  default void close() throws Exception {}
}
