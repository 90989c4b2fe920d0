package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.LongRun;
import java.sql.SQLException;

/** An in-memory H2 database in its default mode (no compatibility mode). */
public final class H2Database extends TestDatabase {

  private static final H2Database INSTANCE = new H2Database();

  public static H2Database get() {
    return INSTANCE;
  }

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:h2:mem:inbox-test;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=600000";
  }

  /**
   * A tenth of the other databases' million rows, unless {@code -Dinbox.test.long=true}: H2 spent
   * 37 of its 51 s of the store suite filling and pruning a million rows (a 20 s prune alone). The
   * test still runs at least 100 DELETE batches with claims between them and the half-way
   * redelivery checks; the million-row scale is shown on PostgreSQL, MariaDB and SQLite, and H2 is
   * a development database.
   */
  @Override
  int pruneRows() {
    return LongRun.pick(100_000, 1_000_000);
  }

  @Override
  String farTimeZoneSql() {
    return "SET TIME ZONE '+14:00'";
  }

  @Override
  String lockTimeoutSql(long millis) {
    return "SET LOCK_TIMEOUT " + millis;
  }

  @Override
  String unreachableUrl() {
    return "jdbc:h2:tcp://127.0.0.1:1/nowhere";
  }

  @Override
  String[] refusedLogin() {
    return new String[] {jdbcUrl(), "intruder", "wrong"};
  }

  @Override
  String sessionIdSql() {
    return "SELECT SESSION_ID()";
  }

  @Override
  String killSessionSql(long id) {
    return "SELECT ABORT_SESSION(" + id + ")";
  }

  @Override
  String sessionLockTimeoutSql() {
    return "SELECT LOCK_TIMEOUT()";
  }

  @Override
  String minusMicros(String col) {
    return "DATEADD(MICROSECOND, -CAST(? AS BIGINT), " + col + ")";
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    execute(
        "INSERT INTO "
            + table
            + " (consumer, message_id, state, attempts, created_at, updated_at)"
            + " SELECT 'old', 'old-' || X, 'DONE', 1,"
            + " DATEADD(DAY, -1, CURRENT_TIMESTAMP(6)), DATEADD(DAY, -1, CURRENT_TIMESTAMP(6))"
            + " FROM SYSTEM_RANGE(1, "
            + rows
            + ")");
  }

  @Override
  String lockWaitersSql() {
    return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_NAME = UPPER('"
        + index
        + "') AND TABLE_SCHEMA = "
        + (namespace == null ? "CURRENT_SCHEMA" : "UPPER('" + namespace + "')");
  }

  @Override
  String dropIndexSql(String table, String index) {
    int dot = table.indexOf('.');
    return "DROP INDEX " + (dot < 0 ? "" : table.substring(0, dot + 1)) + index;
  }

  @Override
  String existingNamespace() throws SQLException {
    execute("CREATE SCHEMA IF NOT EXISTS inbox_app");
    return "inbox_app";
  }

  @Override
  String[] missingDatabase() {
    return new String[] {"jdbc:h2:mem:no_such_database;IFEXISTS=TRUE", "sa", ""};
  }
}
