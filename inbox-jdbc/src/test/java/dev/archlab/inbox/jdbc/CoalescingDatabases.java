package dev.archlab.inbox.jdbc;

import java.util.List;

/**
 * The databases the coalescing suites run on: PostgreSQL (the dialect coalescing was measured on)
 * and H2 (a second dialect's batch statements, in-process). Both are always listed, so each shows
 * in the report; one that {@value TestDatabases#PROPERTY} leaves out is skipped with the reason by
 * {@link CoalescingFixture#on}, before its server starts.
 */
final class CoalescingDatabases {

  private CoalescingDatabases() {}

  /** PostgreSQL and H2, selected or not. */
  static List<TestDatabases.Registered> both() {
    return TestDatabases.all().stream()
        .filter(r -> r.name().equals("postgresql") || r.name().equals("h2"))
        .toList();
  }
}
