package dev.archlab.inbox.jdbc;

/** Pool exhaustion, restarts and crashes after the claim, on H2. */
class H2PoolAndRestartTest extends AbstractPoolAndRestartTest {
  @Override
  TestDatabase database() {
    return H2Database.get();
  }
}
