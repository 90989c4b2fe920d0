package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.InboxStoreContractTest;
import dev.archlab.inbox.testkit.StoreFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole store contract suite with coalescing on, on PostgreSQL and H2: its concurrency tests
 * are the ones where several callers share a flush. A database that {@value TestDatabases#PROPERTY}
 * leaves out is reported as skipped.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.CoalescingDatabases#both")
class CoalescingContractTest extends InboxStoreContractTest {

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  // Before the suite's own set-up, which may wrap a failed fixture and so hide the skip.
  @BeforeEach
  void skipWhenUnselected() {
    TestDatabases.assumeSelected(registered.name());
  }

  @Override
  protected StoreFixture newFixture() {
    return CoalescingFixture.on(registered, "inbox_coalesced_contract");
  }

  @Override
  protected int stressMessageCount() {
    return 1_000;
  }
}
