package dev.archlab.inbox.jdbc;

/** Batch failure isolation, in-batch duplicates and the guarded connection on H2. */
class H2BatchIsolationTest extends AbstractBatchIsolationTest {
  @Override
  TestDatabase database() {
    return H2Database.get();
  }
}
