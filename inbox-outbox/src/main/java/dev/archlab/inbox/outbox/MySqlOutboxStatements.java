package dev.archlab.inbox.outbox;

import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;

/**
 * MariaDB 10.6+ and MySQL 8: a duplicate id is skipped with {@code INSERT IGNORE} (every value is
 * validated before, so IGNORE has nothing else to hide), rows are claimed with {@code FOR UPDATE
 * SKIP LOCKED}, and a prune deletes with {@code DELETE … LIMIT}, since neither allows LIMIT in an
 * {@code IN} subquery.
 */
final class MySqlOutboxStatements extends OutboxStatements {

  MySqlOutboxStatements(JdbcDialect dialect, TableName table) {
    super(dialect, table);
  }

  @Override
  protected String insertSql(String now) {
    return "INSERT IGNORE INTO " + table + insertTail(now);
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

  @Override
  protected String pruneSql(String nowPlusMicros) {
    return "DELETE FROM "
        + table
        + " WHERE state = 'SENT' AND sent_at < "
        + nowPlusMicros
        + limit();
  }
}
