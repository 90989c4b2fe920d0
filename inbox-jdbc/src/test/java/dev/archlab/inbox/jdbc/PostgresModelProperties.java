package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.InboxStoreModelProperties;
import dev.archlab.inbox.testkit.StoreFixture;
import java.sql.SQLException;
import java.time.Duration;
import net.jqwik.api.PropertyDefaults;

/**
 * The model-based properties of {@link InboxStoreModelProperties} on PostgreSQL (embedded server).
 * The database's clock moves in real time ({@link #storeClockMovesOnItsOwn()}); moving time shifts
 * every stored timestamp of the table back. Each try gets the table {@value #TABLE}, emptied.
 */
@PropertyDefaults(tries = 150)
class PostgresModelProperties extends InboxStoreModelProperties {

  static final String TABLE = "inbox_model";

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected StoreFixture newFixture() {
    TestDatabase db = PostgresDatabase.get();
    JdbcInboxStore store;
    try {
      store = db.freshStore(TABLE);
    } catch (SQLException e) {
      throw new IllegalStateException("could not empty " + TABLE + " on " + db.name(), e);
    }
    return new StoreFixture() {
      @Override
      public InboxStore store() {
        return store;
      }

      @Override
      public void advanceTime(Duration duration) {
        db.shiftTime(TABLE, duration);
      }
    };
  }
}
