package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelProperties;
import dev.archlab.inbox.testkit.StoreFixture;
import net.jqwik.api.PropertyDefaults;

/**
 * The model-based properties of {@link InboxStoreModelProperties} on H2 (in memory, in this JVM).
 * The database's clock moves in real time ({@link #storeClockMovesOnItsOwn()}); moving time shifts
 * every stored timestamp of the table back. Each try gets the table {@value #TABLE}, emptied.
 */
@PropertyDefaults(tries = 200)
class H2ModelProperties extends InboxStoreModelProperties {

  static final String TABLE = "inbox_model";

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected StoreFixture newFixture() {
    return H2Database.get().fixture(TABLE);
  }
}
