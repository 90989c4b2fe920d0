package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.JdbcInboxOperations;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.Dialects;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import dev.archlab.inbox.jdbc.schema.SchemaMissingException;
import dev.archlab.inbox.redis.RedisInboxOperations;
import dev.archlab.inbox.redis.RedisInboxStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The database options every command shares, with the environment variables behind them and the
 * embedded default: the SQLite file {@code ./.inbox/inbox.db}, which several processes share
 * through its file locks and whose commits survive a kill of any of them. H2 stays usable by URL.
 */
final class DbOptions {

  static final String ENV_URL = "INBOX_DB_URL";
  static final String ENV_USER = "INBOX_DB_USER";
  static final String ENV_PASSWORD = "INBOX_DB_PASSWORD";

  @Spec(Spec.Target.MIXEE)
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "URL",
      completionCandidates = UrlPrefixes.class,
      description =
          "Database URL, starting with one of: ${COMPLETION-CANDIDATES}"
              + " (env INBOX_DB_URL; default: the SQLite file ./.inbox/inbox.db). The operator"
              + " commands also take Redis: redis://host:port or rediss://, with ?cluster=true"
              + " for a Redis Cluster, and ?keyPrefix=...&buckets=... when the store does not use"
              + " the defaults.")
  String url;

  /** The URL prefixes of the registered dialects, for the help text. */
  static final class UrlPrefixes implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Dialects.urlPrefixes().iterator();
    }
  }

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

  /** The URL as given (option, then environment); null when the embedded default applies. */
  private String givenUrl() {
    String value = url != null ? url : environment.get(ENV_URL);
    return value == null || value.isBlank() ? null : value;
  }

  /** Whether the URL names Redis, which only the operator commands work on. */
  boolean isRedis() {
    String value = givenUrl();
    return value != null && RedisUrl.isRedis(value);
  }

  /**
   * The JDBC URL.
   *
   * @throws ParameterException for a Redis URL (this command needs SQL) or an unknown scheme
   */
  String resolvedUrl() {
    String value = givenUrl();
    if (value == null) {
      return defaultUrl();
    }
    if (RedisUrl.isRedis(value)) {
      throw new ParameterException(
          spec.commandLine(),
          "'"
              + spec.name()
              + "' works on JDBC databases only, not on Redis; on a Redis URL use status, list,"
              + " show, release, retry-dead, prune or ui");
    }
    if (Dialects.forUrl(value).isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "invalid JDBC URL '"
              + value
              + "': expected "
              + expectedPrefixes()
              + " (or, for the operator commands, "
              + RedisUrl.schemes()
              + ")");
    }
    // Settings a dialect requires (SQLite: WAL, BEGIN IMMEDIATE, a busy timeout) where missing.
    return Dialects.withRequiredSettings(withMysqlScheme(value.strip()));
  }

  /**
   * Every registered dialect's URL prefix, in registry order, such as "jdbc:postgresql:,
   * jdbc:mariadb:, jdbc:mysql:, jdbc:sqlite: or jdbc:h2:".
   */
  static String expectedPrefixes() {
    List<String> prefixes = Dialects.urlPrefixes();
    int last = prefixes.size() - 1;
    return last == 0
        ? prefixes.get(0)
        : String.join(", ", prefixes.subList(0, last)) + " or " + prefixes.get(last);
  }

  private static final String MYSQL_SCHEME = "jdbc:mysql:";
  private static final String PERMIT_MYSQL_SCHEME = "permitMysqlScheme";

  /**
   * A {@code jdbc:mysql:} URL rewritten so that the shipped driver (MariaDB Connector/J, which
   * refuses that prefix unless the URL carries {@code permitMysqlScheme}) accepts it; the query
   * parameters already there are kept. Any other URL is returned as it is.
   */
  static String withMysqlScheme(String url) {
    if (!url.regionMatches(true, 0, MYSQL_SCHEME, 0, MYSQL_SCHEME.length())) {
      return url;
    }
    // The driver matches the prefix case-sensitively.
    String rewritten = MYSQL_SCHEME + url.substring(MYSQL_SCHEME.length());
    int query = rewritten.indexOf('?');
    if (query >= 0) {
      for (String parameter : rewritten.substring(query + 1).split("&", -1)) {
        int eq = parameter.indexOf('=');
        if ((eq < 0 ? parameter : parameter.substring(0, eq)).equals(PERMIT_MYSQL_SCHEME)) {
          return rewritten;
        }
      }
    }
    String separator =
        query < 0 ? "?" : rewritten.endsWith("?") || rewritten.endsWith("&") ? "" : "&";
    return rewritten + separator + PERMIT_MYSQL_SCHEME;
  }

  boolean isEmbeddedDefault() {
    return url == null && (environment.get(ENV_URL) == null || environment.get(ENV_URL).isBlank());
  }

  /**
   * How long a write on the embedded default waits for another process's lock (its tests use it).
   */
  static final Duration SQLITE_BUSY_TIMEOUT = SqliteDialect.DEFAULT_BUSY_TIMEOUT;

  /** Marks that the note about an older version's H2 file was given, so it is given once. */
  static final String H2_NOTE_GIVEN = "h2-note-given";

  /** The embedded default's directory, created if missing. */
  static Path defaultDirectory() {
    Path dir = Path.of(".inbox").toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot create " + dir + ": " + e.getMessage(), e);
    }
    return dir;
  }

  /**
   * The registry's embedded default in {@code ./.inbox/}: the SQLite file {@code
   * ./.inbox/inbox.db}, with the driver's native library unpacked into {@code ./.inbox/} (see
   * {@link Dialects#embeddedUrl}).
   */
  static String defaultUrl() {
    Path dir = defaultDirectory();
    return Dialects.embeddedUrl(dir)
        .orElseThrow(() -> new IllegalStateException("no registered dialect runs embedded"));
  }

  /**
   * Says once (a marker file in {@code ./.inbox/} remembers it) that {@code ./.inbox/} holds the H2
   * database of a version whose embedded default was H2, and how to keep using it. Nothing when the
   * embedded default is not in use or there is no such file.
   */
  void noteOlderH2File(PrintWriter err) {
    if (!isEmbeddedDefault() || err == null) {
      return;
    }
    Path dir = defaultDirectory();
    Path h2 = dir.resolve("inbox.mv.db");
    Path given = dir.resolve(H2_NOTE_GIVEN);
    if (!Files.exists(h2) || Files.exists(given)) {
      return;
    }
    err.println(
        "inbox: ./.inbox/ holds an H2 database (inbox.mv.db) from an older version of inbox; the"
            + " embedded default is now the SQLite file ./.inbox/inbox.db. To keep using the H2"
            + " one, pass --db 'jdbc:h2:file:"
            + dir.resolve("inbox")
            + ";AUTO_SERVER=TRUE' (or set "
            + ENV_URL
            + "). This note is shown once.");
    err.flush();
    try {
      Files.writeString(given, "the note about inbox.mv.db was shown\n");
    } catch (java.io.IOException e) {
      // Not remembered: the note comes again next time, which is harmless.
    }
  }

  /** A small pool on the resolved database; closed by the caller. */
  HikariDataSource dataSource(int poolSize) {
    return new HikariDataSource(poolConfig(poolSize));
  }

  /**
   * {@link #open(int, Duration, PrintWriter)} without waiting: an unreachable database or a refused
   * login fails at once.
   */
  HikariDataSource open(int poolSize) {
    return open(poolSize, Duration.ZERO, null);
  }

  /**
   * A pool on the resolved database, after one connection made straight through the driver has
   * proved that the database is there and takes the login. The pool alone would wait its whole
   * connection timeout on every attempt before saying why; the driver says it at once.
   *
   * <p>A refused login fails at once. Any other failure to connect is retried every 500 ms for up
   * to {@code waitForDb} (one line on {@code err} when the wait begins), then fails. The probe
   * connection stays open until the pool has its first connection, so an embedded H2 file is held
   * open by this process from the first connection on (the process that opens it first hosts it for
   * the others).
   *
   * @throws StoreUnavailableException with a one-line message when the database cannot be used
   */
  HikariDataSource open(int poolSize, Duration waitForDb, PrintWriter err) {
    // A malformed table name is a usage error, whatever the state of the database.
    TableName.of(table);
    noteOlderH2File(err != null ? err : spec != null ? spec.commandLine().getErr() : null);
    Connection probe = connectDirectly(waitForDb, err);
    try {
      HikariDataSource ds = dataSource(poolSize);
      try (Connection first = ds.getConnection()) {
        // Only to open the pool while the probe holds the database.
      } catch (SQLException e) {
        // The database went away in between: the command's first statement reports it.
      }
      return ds;
    } finally {
      try {
        probe.close();
      } catch (SQLException e) {
        // The probe's work is done; a connection that fails to close is the driver's business.
      }
    }
  }

  private Connection connectDirectly(Duration waitForDb, PrintWriter err) {
    String jdbcUrl = resolvedUrl();
    Properties props = new Properties();
    String u = resolvedUser();
    String p = resolvedPassword();
    if (u != null) {
      props.setProperty("user", u);
    }
    if (p != null) {
      props.setProperty("password", p);
    }
    if (DriverManager.getLoginTimeout() == 0) {
      // The drivers' own defaults are 10 to 30 s; HikariCP sets the same value for the pool.
      DriverManager.setLoginTimeout(5);
    }
    long deadline = System.nanoTime() + waitForDb.toNanos();
    boolean announced = false;
    while (true) {
      try {
        return DriverManager.getConnection(jdbcUrl, props);
      } catch (SQLException e) {
        if (loginRefused(e)) {
          throw new StoreUnavailableException(
              StoreUnavailableException.Reason.LOGIN_REFUSED,
              "database refused the login: " + describe(e),
              e);
        }
        String reason = (connectionLost(e) ? "database unreachable: " : "cannot connect: ");
        StoreUnavailableException.Reason why =
            connectionLost(e)
                ? StoreUnavailableException.Reason.UNREACHABLE
                : StoreUnavailableException.Reason.OTHER;
        if (System.nanoTime() - deadline >= 0) {
          throw new StoreUnavailableException(why, reason + describe(e), e);
        }
        if (!announced && err != null) {
          announced = true;
          err.println(
              "inbox: "
                  + reason
                  + InboxCli.oneLine(e)
                  + "; waiting up to "
                  + Durations.format(waitForDb)
                  + " for the database");
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new StoreUnavailableException(why, reason + describe(e), e);
        }
      }
    }
  }

  /** A driver error on one line, with its SQLState. */
  private static String describe(SQLException e) {
    return InboxCli.oneLine(e) + " [SQLState " + e.getSQLState() + "]";
  }

  /**
   * Whether {@code t} (or a cause of it) is a refused login: SQLState class 28 (invalid
   * authorization), or the store's classification of one. Waiting never fixes a wrong password.
   */
  static boolean loginRefused(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SQLException sql
          && sql.getSQLState() != null
          && sql.getSQLState().startsWith("28")) {
        return true;
      }
      if (c instanceof StoreUnavailableException unavailable
          && unavailable.reason() == StoreUnavailableException.Reason.LOGIN_REFUSED) {
        return true;
      }
    }
    return false;
  }

  /** Whether a failure to connect looks like a database that is not there (yet). */
  private static boolean connectionLost(SQLException e) {
    String state = e.getSQLState();
    return state == null || state.startsWith("08") || state.startsWith("57P");
  }

  String resolvedUser() {
    return user != null ? user : environment.get(ENV_USER);
  }

  String resolvedPassword() {
    return password != null ? password : environment.get(ENV_PASSWORD);
  }

  /** The pool's settings; separate so tests can put a faulty connection source under them. */
  HikariConfig poolConfig(int poolSize) {
    String jdbcUrl = resolvedUrl();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    String u = resolvedUser();
    String p = resolvedPassword();
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

  /**
   * The database's own default isolation level (its dialect's), as a HikariCP isolation name; READ
   * COMMITTED for a URL no dialect claims.
   */
  static String defaultIsolation(String jdbcUrl) {
    int level =
        Dialects.forUrl(jdbcUrl)
            .map(JdbcDialect::defaultIsolation)
            .orElse(Connection.TRANSACTION_READ_COMMITTED);
    switch (level) {
      case Connection.TRANSACTION_READ_UNCOMMITTED:
        return "TRANSACTION_READ_UNCOMMITTED";
      case Connection.TRANSACTION_REPEATABLE_READ:
        return "TRANSACTION_REPEATABLE_READ";
      case Connection.TRANSACTION_SERIALIZABLE:
        return "TRANSACTION_SERIALIZABLE";
      default:
        return "TRANSACTION_READ_COMMITTED";
    }
  }

  /**
   * The store the operator commands work on: Redis for a Redis URL, else the JDBC table (whose
   * existence is checked, as every operator command always did). Closed by the caller.
   *
   * @throws ParameterException for {@code --user}, {@code --password} or {@code --table} with a
   *     Redis URL
   * @throws StoreUnavailableException when the store cannot be reached
   * @throws SchemaMissingException when the JDBC table does not exist
   */
  OperatorStore openOperatorStore() {
    if (isRedis()) {
      if (user != null || password != null) {
        throw new ParameterException(
            spec.commandLine(),
            "--user and --password are for JDBC databases: give Redis credentials in the URL"
                + " (redis://user:password@host:port)");
      }
      if (spec.commandLine().getParseResult().hasMatchedOption("--table")) {
        throw new ParameterException(
            spec.commandLine(),
            "--table is for JDBC databases: on Redis give the store's key prefix in the URL"
                + " (?keyPrefix=...)");
      }
      RedisInboxStore redis = RedisUrl.parse(givenUrl()).connect();
      return new OperatorStore(new RedisInboxOperations(redis), redis::close);
    }
    HikariDataSource ds = open(2);
    try {
      JdbcInboxStore store = store(ds);
      requireSchema(store);
      return new OperatorStore(new JdbcInboxOperations(store), ds, ds::close);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
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
