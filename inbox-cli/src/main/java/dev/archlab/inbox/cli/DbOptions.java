package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.SchemaMissingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The database options every command shares, with the environment variables behind them and the
 * embedded default: an H2 file database under {@code ./.inbox/} that several processes can open at
 * once (H2's auto-server mode).
 */
final class DbOptions {

  static final String ENV_URL = "INBOX_DB_URL";
  static final String ENV_USER = "INBOX_DB_USER";
  static final String ENV_PASSWORD = "INBOX_DB_PASSWORD";

  @Spec(Spec.Target.MIXEE)
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "JDBC_URL",
      description =
          "Database URL: jdbc:postgresql:…, jdbc:mariadb:…, jdbc:mysql:… or jdbc:h2:…"
              + " (env ${INBOX_DB_URL}; default: an H2 file in ./.inbox/)")
  String url;

  @Option(names = "--user", description = "Database user (env INBOX_DB_USER).")
  String user;

  @Option(
      names = "--password",
      description = "Database password (env INBOX_DB_PASSWORD; prefer the variable).")
  String password;

  @Option(
      names = "--table",
      defaultValue = "inbox",
      description = "Inbox table, a plain SQL identifier (default: ${DEFAULT-VALUE}).")
  String table;

  /** Environment lookup, replaceable in tests. */
  static Map<String, String> environment = System.getenv();

  String resolvedUrl() {
    String value = url != null ? url : environment.get(ENV_URL);
    if (value == null || value.isBlank()) {
      return defaultUrl();
    }
    String lower = value.strip().toLowerCase(java.util.Locale.ROOT);
    if (!(lower.startsWith("jdbc:postgresql:")
        || lower.startsWith("jdbc:mariadb:")
        || lower.startsWith("jdbc:mysql:")
        || lower.startsWith("jdbc:h2:"))) {
      throw new ParameterException(
          spec.commandLine(),
          "invalid JDBC URL '"
              + value
              + "': expected jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql: or jdbc:h2:");
    }
    return value.strip();
  }

  boolean isEmbeddedDefault() {
    return url == null && (environment.get(ENV_URL) == null || environment.get(ENV_URL).isBlank());
  }

  static String defaultUrl() {
    Path dir = Path.of(".inbox").toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot create " + dir + ": " + e.getMessage(), e);
    }
    // AUTO_SERVER lets a second process open the same file while the first has it open.
    return "jdbc:h2:file:" + dir.resolve("inbox") + ";AUTO_SERVER=TRUE";
  }

  /** A small pool on the resolved database; closed by the caller. */
  HikariDataSource dataSource(int poolSize) {
    return new HikariDataSource(poolConfig(poolSize));
  }

  /** The pool's settings; separate so tests can put a faulty connection source under them. */
  HikariConfig poolConfig(int poolSize) {
    String jdbcUrl = resolvedUrl();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    String u = user != null ? user : environment.get(ENV_USER);
    String p = password != null ? password : environment.get(ENV_PASSWORD);
    if (u != null) {
      config.setUsername(u);
    }
    if (p != null) {
      config.setPassword(p);
    }
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(5_000);
    // Fail on the first use with the driver's own message instead of at pool start.
    config.setInitializationFailTimeout(-1);
    config.setPoolName("inbox-cli");
    // Named explicitly because HikariCP otherwise learns the default from its first connection
    // and, when that connection dies mid-check (a terminated backend, a restart), keeps -1 and
    // rejects every later connection (HikariCP issues #1944, #2269). The values are each
    // database's own default, so behaviour is the same as letting the driver decide.
    config.setTransactionIsolation(defaultIsolation(jdbcUrl));
    return config;
  }

  /** The database's own default isolation level, as a HikariCP isolation name. */
  static String defaultIsolation(String jdbcUrl) {
    String lower = jdbcUrl.toLowerCase(java.util.Locale.ROOT);
    if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
      return "TRANSACTION_REPEATABLE_READ";
    }
    return "TRANSACTION_READ_COMMITTED";
  }

  /** The store on {@code ds}; the table name is validated here. */
  JdbcInboxStore store(HikariDataSource ds) {
    return JdbcInboxStore.builder(ds).table(table).build();
  }

  /**
   * @throws SchemaMissingException naming the fix when the table does not exist
   */
  static void requireSchema(JdbcInboxStore store) {
    if (!store.schemaExists()) {
      throw new SchemaMissingException(
          "table '" + store.table() + "' does not exist: run 'inbox migrate' first", null);
    }
  }
}
