package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole store contract suite on one real database. Each test gets the same table, emptied;
 * moving time shifts every stored timestamp back, which is the same as the database clock moving
 * forward for every comparison the store makes.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class JdbcContractTest extends InboxStoreContractTest {

  static final String TABLE = "inbox_contract";

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  TestDatabase database() {
    return registered.get();
  }

  @Override
  protected StoreFixture newFixture() {
    return database().fixture(TABLE);
  }

  @Override
  protected int stressMessageCount() {
    return 1_000;
  }
}
