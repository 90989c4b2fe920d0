package dev.archlab.inbox.jdbc;

/** Batch failure isolation, in-batch duplicates and the guarded connection on PostgreSQL. */
class PostgresBatchIsolationTest extends AbstractBatchIsolationTest {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }
}
