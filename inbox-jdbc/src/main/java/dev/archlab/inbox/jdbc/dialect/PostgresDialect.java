package dev.archlab.inbox.jdbc.dialect;

import java.sql.SQLException;
import java.time.Duration;

/**
 * PostgreSQL 12 and later. Claims use {@code INSERT … ON CONFLICT DO NOTHING RETURNING}, which
 * never raises a unique violation and so never aborts the caller's transaction. Time is {@code
 * statement_timestamp()}: the database's clock, current for each statement even inside a long
 * transaction.
 */
public class PostgresDialect extends JdbcDialect {

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public String now() {
    return "statement_timestamp()";
  }

  @Override
  public String nowPlusMicros() {
    return "(statement_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 microsecond')";
  }

  @Override
  public String insertIfAbsent(String table) {
    return "INSERT INTO "
        + table
        + " (consumer, message_id, state, attempts, lease_until, created_at, updated_at,"
        + " payload_hash) VALUES (?, ?, 'PROCESSING', 1, "
        + nowPlusMicros()
        + ", statement_timestamp(), statement_timestamp(), ?)"
        + " ON CONFLICT (consumer, message_id) DO NOTHING RETURNING "
        + COLUMNS;
  }

  @Override
  public boolean insertReturnsRecord() {
    return true;
  }

  @Override
  public String updateReturning(String update) {
    return update + " RETURNING " + COLUMNS;
  }

  @Override
  public String pruneBatch(String table, boolean perConsumer) {
    // PostgreSQL has no DELETE … LIMIT; a bounded ctid sub-select keeps each batch short. The
    // conditions are repeated so a row changed since the sub-select is left alone.
    String where = "state = 'DONE' AND updated_at < ?" + (perConsumer ? " AND consumer = ?" : "");
    return "DELETE FROM "
        + table
        + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM "
        + table
        + " WHERE "
        + where
        + " LIMIT ?)) AND state = 'DONE'";
  }

  @Override
  public String lockTimeoutStatement(Duration timeout) {
    return "SET LOCAL lock_timeout = " + Math.max(1, timeout.toMillis());
  }

  @Override
  public SqlErrorKind classify(SQLException e) {
    String state = e.getSQLState();
    if ("55P03".equals(state)) {
      return SqlErrorKind.LOCK_TIMEOUT;
    }
    if ("57P01".equals(state) || "57P02".equals(state) || "57P03".equals(state)) {
      // admin shutdown, crash shutdown, cannot connect now: the server is going away.
      return SqlErrorKind.CONNECTION;
    }
    return super.classify(e);
  }

  @Override
  public boolean failedStatementAbortsTransaction() {
    return true;
  }
}
