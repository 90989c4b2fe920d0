package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.MySqlDialect;
import dev.archlab.inbox.testkit.LongRun;
import java.sql.SQLException;

/**
 * The fixture of {@link MySqlDialect} (registered as "mysql", after the dialect): the MySQL 8 code
 * path, run on the MariaDB server, as the tests embed no MySQL server. Every store of these tests
 * is given {@link MySqlDialect}, so claims read the inserted row back instead of using {@code
 * RETURNING}, fenced updates re-read the row, batch claims go one by one, and a one-commit lock
 * timeout saves, sets and restores the session variable. Its tables live in a schema of their own
 * ({@value MariaDbDatabase#MYSQL_DIALECT_SCHEMA}).
 *
 * <p>Only the table is created from the MariaDB DDL: MariaDB accepts the MySQL file's {@code
 * utf8mb4_0900_bin} but makes it a PAD SPACE collation, under which {@code 'a'} and {@code 'a '}
 * are one key. So the shipped MySQL DDL itself is not exercised here.
 */
final class MySqlDatabase extends TestDatabase {

  private static final MySqlDatabase INSTANCE = new MySqlDatabase();

  static MySqlDatabase get() {
    return INSTANCE;
  }

  private final MariaDbDatabase server = MariaDbDatabase.get();

  /** The MySQL dialect, creating its tables from the MariaDB DDL (see the class comment). */
  static final class MySqlDialectWithMariaDbDdl extends MySqlDialect {
    @Override
    public String schemaResource() {
      return "dev/archlab/inbox/jdbc/schema/mariadb/V1__create_inbox.sql";
    }
  }

  @Override
  JdbcDialect forcedDialect() {
    return new MySqlDialectWithMariaDbDdl();
  }

  @Override
  public String name() {
    return "mysql";
  }

  /** Detection sees the server, MariaDB; only the forced dialect makes this the MySQL path. */
  @Override
  String detectedDialectName() {
    return "mariadb";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + server.port() + "/" + MariaDbDatabase.MYSQL_DIALECT_SCHEMA;
  }

  @Override
  public String user() {
    return server.user();
  }

  @Override
  public String password() {
    return server.password();
  }

  @Override
  String minusMicros(String col) {
    return server.minusMicros(col);
  }

  @Override
  String farTimeZoneSql() {
    return server.farTimeZoneSql();
  }

  @Override
  String lockTimeoutSql(long millis) {
    return server.lockTimeoutSql(millis);
  }

  @Override
  String unreachableUrl() {
    return server.unreachableUrl();
  }

  @Override
  String[] refusedLogin() {
    return new String[] {jdbcUrl(), server.user(), "definitely-wrong"};
  }

  @Override
  String sessionIdSql() {
    return server.sessionIdSql();
  }

  @Override
  String killSessionSql(long id) {
    return server.killSessionSql(id);
  }

  @Override
  String sessionLockTimeoutSql() {
    return server.sessionLockTimeoutSql();
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    // In this fixture's own schema: the server fixture would fill its namesake table.
    execute(MariaDbDatabase.fillDoneSql(table, rows));
  }

  /**
   * Fewer rows than MariaDB's own run: the one-million-row prune is the MariaDB dialect's, and the
   * batch loop is the same for both.
   */
  @Override
  int pruneRows() {
    return 50_000;
  }

  /**
   * 60 sequences, unless {@code -Dinbox.test.long=true} (then as many as the MariaDB run, 150): the
   * same server runs more for the MariaDB dialect, so what these seeds add is only what the MySQL
   * dialect does differently (claims that read the inserted row back, fenced updates that re-read
   * it, the lock-timeout save and restore). Seeds 1 to 60 still reach every decision and refusal
   * the coverage check asks for (the counts are the same on every database).
   */
  @Override
  int modelSeeds() {
    return LongRun.pick(60, server.modelSeeds());
  }

  @Override
  String lockWaitersSql() {
    return server.lockWaitersSql();
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return server.indexCountSql(namespace, index);
  }

  @Override
  String dropIndexSql(String table, String index) {
    return server.dropIndexSql(table, index);
  }

  /** The MariaDB tests' own database: not this variant's default one. */
  @Override
  String existingNamespace() {
    return "inbox_test";
  }

  @Override
  String[] missingDatabase() {
    return server.missingDatabase();
  }
}
