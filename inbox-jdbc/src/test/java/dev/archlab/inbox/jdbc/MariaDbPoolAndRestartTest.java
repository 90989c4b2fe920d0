package dev.archlab.inbox.jdbc;

/** Pool exhaustion, restarts and crashes after the claim, on MariaDB. */
class MariaDbPoolAndRestartTest extends AbstractPoolAndRestartTest {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }
}
