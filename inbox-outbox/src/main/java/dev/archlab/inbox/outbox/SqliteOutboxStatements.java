package dev.archlab.inbox.outbox;

import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;

/**
 * SQLite: a duplicate id is skipped with {@code ON CONFLICT DO NOTHING}. SQLite has no row locks,
 * so a relay claims its rows with leases ({@link LeaseClaims}).
 */
final class SqliteOutboxStatements extends OutboxStatements {

  SqliteOutboxStatements(JdbcDialect dialect, TableName table) {
    super(dialect, table);
  }

  @Override
  protected String insertSql(String now) {
    return "INSERT INTO " + table + insertTail(now) + " ON CONFLICT (message_id) DO NOTHING";
  }

  @Override
  boolean insertSkipsDuplicates() {
    return true;
  }
}
