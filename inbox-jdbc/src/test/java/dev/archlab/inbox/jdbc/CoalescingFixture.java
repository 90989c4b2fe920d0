package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.StoreFixture;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A fixture whose store has coalescing on, on the database's shared pool and a table of its own
 * (created, emptied); time moves by shifting the table's stored timestamps back, like {@link
 * TestDatabase#fixture}.
 */
final class CoalescingFixture implements StoreFixture {

  private final TestDatabase database;
  private final String table;
  private final JdbcInboxStore store;

  /**
   * The fixture on {@code registered}, or the test reported as skipped (before its server starts)
   * when {@value TestDatabases#PROPERTY} leaves that database out.
   */
  static CoalescingFixture on(TestDatabases.Registered registered, String table) {
    TestDatabases.assumeSelected(registered.name());
    return new CoalescingFixture(registered.get(), table);
  }

  CoalescingFixture(TestDatabase database, String table) {
    this.database = database;
    this.table = table;
    this.store = database.storeBuilder(database.dataSource()).table(table).coalescing(true).build();
    store.createSchemaIfMissing();
    try {
      database.execute("DELETE FROM " + table);
    } catch (SQLException e) {
      throw new IllegalStateException("could not empty " + table + " on " + database.name(), e);
    }
  }

  @Override
  public InboxStore store() {
    return store;
  }

  @Override
  public void advanceTime(Duration duration) {
    database.shiftTime(table, duration);
  }
}
