package dev.archlab.inbox.outbox;

import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;

/**
 * PostgreSQL: a failed INSERT aborts the whole transaction (the handler's too), so a duplicate id
 * is skipped with {@code ON CONFLICT DO NOTHING}; rows are claimed with {@code FOR UPDATE SKIP
 * LOCKED}, reading the unsent rows in index order ({@link #beforeClaim()}).
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

  /**
   * No sorts in the claim's transaction: on a table without statistics PostgreSQL would take the
   * unsent rows through the due index and sort every one of them to read a window of them, where
   * the order index hands them over in seq order and stops at the window's end, whatever the
   * backlog. SET LOCAL ends with the transaction.
   */
  @Override
  String beforeClaim() {
    return "SET LOCAL enable_sort = off";
  }

  /**
   * The batch's seqs gathered into an array first, so the rows are deleted by primary key: with
   * {@code IN (SELECT …)} PostgreSQL may plan a hash join that scans the whole table per batch.
   */
  @Override
  protected String pruneSql(String nowPlusMicros) {
    return "DELETE FROM "
        + table
        + " WHERE seq = ANY (ARRAY(SELECT seq FROM "
        + table
        + " WHERE state = 'SENT' AND sent_at < "
        + nowPlusMicros
        + limit()
        + "))";
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
