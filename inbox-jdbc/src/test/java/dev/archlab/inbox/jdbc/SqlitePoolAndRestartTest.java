package dev.archlab.inbox.jdbc;

/** Pool exhaustion, restarts and crashes after the claim, on SQLite. */
class SqlitePoolAndRestartTest extends AbstractPoolAndRestartTest {
  @Override
  TestDatabase database() {
    return SqliteDatabase.get();
  }
}
