package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.jdbc.TableName;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * H2 2.x in any compatibility mode: the embedded default for demos and first runs. A claim is a
 * plain {@code INSERT} whose unique violation (SQLState 23505) means "taken"; H2 rolls back only
 * the failed statement, never the caller's transaction.
 */
public class H2Dialect extends JdbcDialect {

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public String productName() {
    return "H2";
  }

  @Override
  public List<String> urlPrefixes() {
    return List.of("jdbc:h2:");
  }

  @Override
  public String now() {
    return "CURRENT_TIMESTAMP(6)";
  }

  @Override
  public String nowPlusMicros() {
    return "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))";
  }

  /** The standard catalogue, with fenced updates returning the row through {@code FINAL TABLE}. */
  @Override
  public Statements statements(TableName table) {
    return new Statements(this, table) {
      @Override
      protected String returningSql(String update) {
        return "SELECT " + COLUMNS + " FROM FINAL TABLE (" + update + ")";
      }
    };
  }

  /**
   * H2's {@code LOCK_TIMEOUT} is a session setting that a rollback does not undo, so it is saved in
   * a session variable, set for the claim, and put back right after it.
   */
  @Override
  public LockTimeoutPlan claimLockTimeout(Duration timeout) {
    return new LockTimeoutPlan(
        List.of(
            "SET @inbox_saved_lock_timeout = LOCK_TIMEOUT()",
            "SET LOCK_TIMEOUT " + Math.max(1, timeout.toMillis())),
        "",
        List.of("SET LOCK_TIMEOUT @inbox_saved_lock_timeout"));
  }

  /** The session's {@code LOCK_TIMEOUT}, saved, set for the DDL, and put back. */
  @Override
  public LockTimeoutPlan ddlLockTimeout(Duration timeout) {
    return claimLockTimeout(timeout);
  }

  @Override
  protected String indexCatalog() {
    return "INFORMATION_SCHEMA.INDEXES";
  }

  /**
   * Its rules are the generic SQLState ones plus H2's own five-digit codes, which no other driver
   * sets, so they read any error before a dialect is detected.
   */
  @Override
  public boolean readsUnclaimedErrors() {
    return true;
  }

  @Override
  public SqlErrorKind classify(SQLException e) {
    if ("HYT00".equals(e.getSQLState()) || e.getErrorCode() == 50200) {
      return SqlErrorKind.LOCK_TIMEOUT;
    }
    switch (e.getErrorCode()) {
      case 90067: // connection broken
      case 90098: // database is closed
      case 90121: // database called at shutdown (also after its session was aborted)
        return SqlErrorKind.CONNECTION;
      case 90013: // database not found
      case 90146: // database not found, and IFEXISTS=TRUE forbids creating it
        return SqlErrorKind.DATABASE_MISSING;
      case 90079: // schema not found
        return SqlErrorKind.NAMESPACE_MISSING;
      default:
        break;
    }
    return super.classify(e);
  }
}
