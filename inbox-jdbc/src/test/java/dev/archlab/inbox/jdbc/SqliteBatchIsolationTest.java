package dev.archlab.inbox.jdbc;

/** Batch failure isolation, in-batch duplicates and the guarded connection on SQLite. */
class SqliteBatchIsolationTest extends AbstractBatchIsolationTest {
  @Override
  TestDatabase database() {
    return SqliteDatabase.get();
  }
}
