package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model test of {@link InboxStoreModelTest} on every database registered in {@link
 * TestDatabases}, named after it. The database's clock moves in real time ({@link
 * #storeClockMovesOnItsOwn()}); moving time shifts every stored timestamp of the table back. Each
 * sequence gets the table {@value #TABLE}, emptied; each database runs its own number of sequences
 * ({@link TestDatabase#modelSeeds()}).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class JdbcModelTest extends InboxStoreModelTest {

  static final String TABLE = "inbox_model";

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected int seeds() {
    return registered.get().modelSeeds();
  }

  @Override
  protected StoreFixture newFixture() {
    return registered.get().fixture(TABLE);
  }
}
