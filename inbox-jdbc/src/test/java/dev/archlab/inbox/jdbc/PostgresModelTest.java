package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The model test of {@link InboxStoreModelTest} on PostgreSQL (embedded server). The database's
 * clock moves in real time ({@link #storeClockMovesOnItsOwn()}); moving time shifts every stored
 * timestamp of the table back. Each sequence gets the table {@value #TABLE}, emptied.
 */
class PostgresModelTest extends InboxStoreModelTest {

  static final String TABLE = "inbox_model";

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected int seeds() {
    return 150;
  }

  @Override
  protected StoreFixture newFixture() {
    return PostgresDatabase.get().fixture(TABLE);
  }
}
