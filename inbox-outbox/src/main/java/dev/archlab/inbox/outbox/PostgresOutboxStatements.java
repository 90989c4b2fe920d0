package dev.archlab.inbox.outbox;

import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;

/**
 * PostgreSQL: a failed INSERT aborts the whole transaction (the handler's too), so a duplicate id
 * is skipped with {@code ON CONFLICT DO NOTHING}; rows are claimed with {@code FOR UPDATE SKIP
 * LOCKED}.
 */
final class PostgresOutboxStatements extends OutboxStatements {

  PostgresOutboxStatements(JdbcDialect dialect, TableName table) {
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

  @Override
  protected String lockClause() {
    return " FOR UPDATE";
  }

  @Override
  protected String skipLockedClause() {
    return " FOR UPDATE SKIP LOCKED";
  }
}
