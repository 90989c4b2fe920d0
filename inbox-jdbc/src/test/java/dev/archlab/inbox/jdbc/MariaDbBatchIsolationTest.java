package dev.archlab.inbox.jdbc;

/** Batch failure isolation, in-batch duplicates and the guarded connection on MariaDB. */
class MariaDbBatchIsolationTest extends AbstractBatchIsolationTest {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }
}
