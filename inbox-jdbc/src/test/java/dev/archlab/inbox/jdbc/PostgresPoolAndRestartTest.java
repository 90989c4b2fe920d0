package dev.archlab.inbox.jdbc;

/** Pool exhaustion, restarts and crashes after the claim, on Postgres. */
class PostgresPoolAndRestartTest extends AbstractPoolAndRestartTest {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }
}
