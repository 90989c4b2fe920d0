package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;

/**
 * One SQLite file in a temporary directory, shared by every pool of the JVM as several processes
 * would share it: a real file in WAL mode with {@code BEGIN IMMEDIATE} transactions, never {@code
 * :memory:}. SQLite has no server: what a test asks of a server session (a login to refuse, a
 * session to kill, a session time zone) is reported as skipped for it.
 */
public final class SqliteDatabase extends TestDatabase {

  private static final SqliteDatabase INSTANCE = new SqliteDatabase();

  /** Long: the suites' worker threads all write to one file and queue for its lock. */
  static final Duration BUSY_TIMEOUT = Duration.ofSeconds(60);

  private final Path directory;

  private SqliteDatabase() {
    try {
      directory = Files.createTempDirectory("inbox-sqlite-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static SqliteDatabase get() {
    return INSTANCE;
  }

  /** The directory holding the test database file, for tests that make files beside it. */
  Path directory() {
    return directory;
  }

  @Override
  public String name() {
    return "sqlite";
  }

  @Override
  public String jdbcUrl() {
    return SqliteDialect.jdbcUrl(directory.resolve("inbox-test.db"), BUSY_TIMEOUT);
  }

  @Override
  boolean oneWriterAtATime() {
    return true;
  }

  @Override
  String minusMicros(String col) {
    return "(" + col + " - CAST(? AS INTEGER) / 1000)";
  }

  @Override
  String farTimeZoneSql() {
    Assumptions.abort("SQLite has no session time zone: its clock in SQL is always UTC");
    return null;
  }

  @Override
  String lockTimeoutSql(long millis) {
    return "PRAGMA busy_timeout = " + millis;
  }

  @Override
  String unreachableUrl() {
    return "jdbc:sqlite:" + directory.resolve("no-such-directory").resolve("inbox.db");
  }

  @Override
  String[] refusedLogin() {
    Assumptions.abort("SQLite has no logins to refuse");
    return null;
  }

  @Override
  String sessionIdSql() {
    Assumptions.abort("SQLite has no server session to kill");
    return null;
  }

  @Override
  String killSessionSql(long id) {
    Assumptions.abort("SQLite has no server session to kill");
    return null;
  }

  @Override
  String sessionLockTimeoutSql() {
    return "PRAGMA busy_timeout";
  }

  @Override
  String pastTimeLiteral() {
    return "1577836800000"; // 2020-01-01T00:00:00Z in epoch milliseconds
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    long dayMillis = 86_400_000L;
    execute(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < "
            + rows
            + ") INSERT INTO "
            + table
            + " (consumer, message_id, state, attempts, created_at, updated_at)"
            + " SELECT 'old', 'old-' || x, 'DONE', 1,"
            + " CAST(unixepoch('subsec') * 1000 AS INTEGER) - "
            + dayMillis
            + ", CAST(unixepoch('subsec') * 1000 AS INTEGER) - "
            + dayMillis
            + " FROM n");
  }

  @Override
  String lockWaitersSql() {
    Assumptions.abort("SQLite cannot list the connections that wait for its lock");
    return null;
  }

  /** SQLite's schemas are its attached databases; {@code main} is always there. */
  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(*) FROM "
        + (namespace == null ? "main" : namespace)
        + ".sqlite_master WHERE type = 'index' AND name = '"
        + index
        + "'";
  }

  @Override
  String dropIndexSql(String table, String index) {
    int dot = table.indexOf('.');
    return "DROP INDEX " + (dot < 0 ? "" : table.substring(0, dot + 1)) + index;
  }

  @Override
  String existingNamespace() {
    Assumptions.abort(
        "SQLite's CREATE INDEX qualifies the index, not the table: schema-qualified inbox tables"
            + " are not supported on SQLite");
    return null;
  }

  @Override
  String[] missingDatabase() {
    Assumptions.abort(
        "SQLite creates a missing database file; a missing directory is JdbcStoreTest's"
            + " unreachableDatabase");
    return null;
  }
}
