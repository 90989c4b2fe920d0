package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;

/**
 * The model test of {@link InboxStoreModelTest} on SQLite (a file, several pooled connections). The
 * database's clock moves in real time ({@link #storeClockMovesOnItsOwn()}); moving time shifts
 * every stored timestamp of the table back. Each sequence gets the table {@value #TABLE}, emptied.
 */
class SqliteModelTest extends InboxStoreModelTest {

  static final String TABLE = "inbox_model";

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected int seeds() {
    return 200;
  }

  @Override
  protected StoreFixture newFixture() {
    return SqliteDatabase.get().fixture(TABLE);
  }
}
