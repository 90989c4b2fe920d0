package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreModelTest;
import dev.archlab.inbox.testkit.StoreFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model test with coalescing on, on PostgreSQL and H2: every call is a flush of its own here,
 * so this shows a lone caller's answers are exactly the uncoalesced store's. A database that
 * {@value TestDatabases#PROPERTY} leaves out is reported as skipped.
 *
 * <p>{@value #DEFAULT_SEEDS} seeds by default, to keep CI short: the uncoalesced {@link
 * JdbcModelTest} already runs the full count on every database, and a lone coalescing caller takes
 * the same statements. For the long run by hand: {@code -Dinbox.model.seeds=200} (the property of
 * {@link InboxStoreModelTest}, which also sets the other model tests run in the same build).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.CoalescingDatabases#both")
class CoalescingModelTest extends InboxStoreModelTest {

  static final int DEFAULT_SEEDS = 50;

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  // Before the suite's own set-up, which may wrap a failed fixture and so hide the skip.
  @BeforeEach
  void skipWhenUnselected() {
    TestDatabases.assumeSelected(registered.name());
  }

  @Override
  protected boolean storeClockMovesOnItsOwn() {
    return true;
  }

  @Override
  protected int seeds() {
    return DEFAULT_SEEDS;
  }

  @Override
  protected StoreFixture newFixture() {
    return CoalescingFixture.on(registered, "inbox_coalesced_model");
  }
}
