package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.jdbc.TableName;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * SQLite 3.37 and later through the xerial driver ({@code org.xerial:sqlite-jdbc}): one database
 * file shared by the threads and processes of one machine. A commit is atomic under a process kill
 * (SIGKILL included), and the file's locks let several processes write to it in turn.
 *
 * <p>What the store needs from every connection, and what {@link #dataSource(Path)} sets:
 *
 * <ul>
 *   <li><b>{@code BEGIN IMMEDIATE}</b> for every transaction (the driver's transaction mode {@code
 *       IMMEDIATE}): a transaction takes the file's write lock when it begins, waiting up to the
 *       busy timeout. With the default {@code DEFERRED} a transaction that read first and then
 *       writes fails at once with {@code SQLITE_BUSY} when another process wrote meanwhile.
 *   <li>a <b>busy timeout</b> above zero: how long a statement waits for another connection's write
 *       lock before it fails with {@code SQLITE_BUSY};
 *   <li>the <b>WAL journal</b>: readers never wait for the writer, and the writer never waits for
 *       readers.
 * </ul>
 *
 * The first connection the store uses is checked ({@link #checkConnection}): a connection without
 * {@code IMMEDIATE} or with a zero busy timeout is refused with an {@link
 * InvalidConfigurationException}; one not in WAL mode is used, with a warning. Never configure a
 * pool with {@code autoCommit=false}: the driver begins the next transaction, and so takes the
 * write lock, as soon as the previous one ends.
 *
 * <p>Times are stored as INTEGER milliseconds since the epoch (UTC), read from the database's clock
 * in SQL ({@code unixepoch('subsec')}): leases and {@code updated_at} have millisecond precision,
 * and a lease is rounded up to the next whole millisecond, never down. Claims are {@code INSERT …
 * ON CONFLICT DO NOTHING RETURNING}; a batch of claims is one multi-row statement of that kind.
 *
 * <p>Not for files on network filesystems: SQLite's locks are not reliable there.
 */
public class SqliteDialect extends JdbcDialect {

  private static final System.Logger LOG = System.getLogger(SqliteDialect.class.getName());

  /** The busy timeout {@link #dataSource(Path)} sets: how long a writer waits for the lock. */
  public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(10);

  /** The database's clock in whole milliseconds since the epoch, the same within a statement. */
  private static final String NOW = "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)";

  // SQLite's primary result codes, as the driver reports them in SQLException.getErrorCode().
  private static final int SQLITE_ERROR = 1;
  private static final int SQLITE_BUSY = 5;
  private static final int SQLITE_LOCKED = 6;
  private static final int SQLITE_READONLY = 8;
  private static final int SQLITE_IOERR = 10;
  private static final int SQLITE_CORRUPT = 11;
  private static final int SQLITE_CANTOPEN = 14;
  private static final int SQLITE_FULL = 13;
  private static final int SQLITE_NOTADB = 26;

  /** The file name of the embedded database in its directory (see {@link #embeddedUrl}). */
  public static final String EMBEDDED_FILE = "inbox.db";

  /** The settings the store needs on every connection, as JDBC URL parameters. */
  private static final List<String[]> REQUIRED_SETTINGS =
      List.of(
          new String[] {"journal_mode", "WAL"},
          new String[] {"transaction_mode", "IMMEDIATE"},
          new String[] {"busy_timeout", String.valueOf(DEFAULT_BUSY_TIMEOUT.toMillis())});

  private static final String URL_PREFIX = "jdbc:sqlite:";

  @Override
  public String name() {
    return "sqlite";
  }

  @Override
  public String productName() {
    return "SQLite";
  }

  @Override
  public List<String> urlPrefixes() {
    return List.of(URL_PREFIX);
  }

  /** SERIALIZABLE: SQLite's transactions are serializable, always. */
  @Override
  public int defaultIsolation() {
    return Connection.TRANSACTION_SERIALIZABLE;
  }

  /**
   * True: one write lock per file, and {@code BEGIN IMMEDIATE} takes it when a transaction begins,
   * so an open transaction keeps every other connection from writing until it ends.
   */
  @Override
  public boolean oneWriterAtATime() {
    return true;
  }

  /**
   * Adds {@code journal_mode=WAL}, {@code transaction_mode=IMMEDIATE} and {@code busy_timeout} (of
   * {@link #DEFAULT_BUSY_TIMEOUT}) where the URL does not name them, so that a plain file URL
   * works.
   */
  @Override
  public String withRequiredSettings(String jdbcUrl) {
    if (!jdbcUrl.regionMatches(true, 0, URL_PREFIX, 0, URL_PREFIX.length())) {
      return jdbcUrl;
    }
    int query = jdbcUrl.indexOf('?');
    Set<String> named = new HashSet<>();
    if (query >= 0) {
      for (String parameter : jdbcUrl.substring(query + 1).split("&", -1)) {
        int eq = parameter.indexOf('=');
        named.add(lower(eq < 0 ? parameter : parameter.substring(0, eq)));
      }
    }
    StringBuilder out = new StringBuilder(jdbcUrl);
    boolean first = query < 0;
    for (String[] setting : REQUIRED_SETTINGS) {
      if (named.contains(setting[0])) {
        continue;
      }
      if (first) {
        out.append('?');
        first = false;
      } else if (!(out.charAt(out.length() - 1) == '?' || out.charAt(out.length() - 1) == '&')) {
        out.append('&');
      }
      out.append(setting[0]).append('=').append(setting[1]);
    }
    return out.toString();
  }

  /**
   * The file {@code directory/inbox.db} ({@link #jdbcUrl}, {@link #DEFAULT_BUSY_TIMEOUT}). The
   * driver extracts its native library on every start and a killed process leaves it behind, so
   * unless {@code org.sqlite.tmpdir} is set already it is pointed into {@code directory}, not the
   * system temp directory; the driver reads it when it loads, at its first connection.
   */
  @Override
  public Optional<String> embeddedUrl(Path directory) {
    if (System.getProperty("org.sqlite.tmpdir") == null) {
      System.setProperty("org.sqlite.tmpdir", directory.toAbsolutePath().normalize().toString());
    }
    return Optional.of(jdbcUrl(directory.resolve(EMBEDDED_FILE), DEFAULT_BUSY_TIMEOUT));
  }

  /** The xerial driver's exceptions, or this dialect's diagnosis of a file it could not open. */
  @Override
  public boolean raisedByDriver(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SqliteFileDataSource.OpenFailure
          || t.getClass().getName().startsWith("org.sqlite.")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String now() {
    return NOW;
  }

  /** Rounded up to whole milliseconds, so a lease is never shorter than asked. */
  @Override
  public String nowPlusMicros() {
    return "(" + NOW + " + (CAST(? AS INTEGER) + 999) / 1000)";
  }

  @Override
  public Statements statements(TableName table) {
    return new SqliteStatements(this, table);
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    if (instant == null) {
      ps.setNull(index, java.sql.Types.INTEGER);
    } else {
      ps.setLong(index, instant.toEpochMilli());
    }
  }

  @Override
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
  }

  // ---- catalog: attached databases are SQLite's schemas ----------------------------------------

  @Override
  public boolean namespaceExists(Connection c, String namespace) throws SQLException {
    return exists(c, "SELECT 1 FROM pragma_database_list WHERE name = ? COLLATE NOCASE", namespace);
  }

  @Override
  public boolean tableExists(Connection c, String namespace, String table) throws SQLException {
    return exists(
        c,
        "SELECT 1 FROM " + master(namespace) + " WHERE type = 'table' AND name = ? COLLATE NOCASE",
        table);
  }

  @Override
  public boolean indexExists(Connection c, String namespace, String table, String index)
      throws SQLException {
    return exists(
        c,
        "SELECT 1 FROM "
            + master(namespace)
            + " WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE AND name = ? COLLATE NOCASE",
        table,
        index);
  }

  /** The catalog of {@code namespace} (a validated identifier), or of the main database. */
  private static String master(String namespace) {
    return (namespace == null ? "main" : namespace) + ".sqlite_master";
  }

  // ---- errors
  // ------------------------------------------------------------------------------------

  /**
   * SQLite reports result codes, not SQLStates. {@code SQLITE_BUSY} (the lock stayed taken past the
   * busy timeout) is transient: the statement did nothing and may be retried. A file that cannot be
   * opened, is read-only or is not a database makes the store unavailable.
   */
  @Override
  public SqlErrorKind classify(SQLException e) {
    switch (e.getErrorCode()) {
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return SqlErrorKind.SERIALIZATION;
      case SQLITE_CANTOPEN:
      case SQLITE_NOTADB:
      case SQLITE_READONLY:
      case SQLITE_IOERR:
      case SQLITE_CORRUPT:
      case SQLITE_FULL:
        return SqlErrorKind.CONNECTION;
      case SQLITE_ERROR:
        return schemaError(e);
      default:
        return super.classify(e);
    }
  }

  /** SQLITE_ERROR is SQLite's generic code: only its message tells a missing table apart. */
  private SqlErrorKind schemaError(SQLException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    if (message.contains("no such table:")
        || message.contains("no such column:")
        || message.contains("has no column named")) {
      return SqlErrorKind.SCHEMA_MISSING;
    }
    if (message.contains("unknown database")) {
      return SqlErrorKind.NAMESPACE_MISSING;
    }
    return super.classify(e);
  }

  /**
   * Reads the first SQLite error in {@code e}'s causes (a pool wraps the driver's): the diagnosis
   * of {@link #dataSource(Path)} when it opened the file, else what the result code means.
   */
  @Override
  public String explain(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SqliteFileDataSource.OpenFailure diagnosed) {
        return diagnosed.diagnosis;
      }
      if (t instanceof SQLException sql) {
        String meaning = meaning(sql.getErrorCode());
        if (meaning != null) {
          return meaning;
        }
      }
    }
    return null;
  }

  private static String meaning(int code) {
    switch (code) {
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return "the SQLite database file stayed locked by another connection or process for"
            + " longer than the busy timeout; a long transaction holds the write lock (end it),"
            + " or raise the busy timeout (SqliteDialect.dataSource(file, busyTimeout))";
      case SQLITE_NOTADB:
        return "the file is not an SQLite database (another program's file, or a database of"
            + " another kind such as H2); point the URL at another file, or move this one away";
      case SQLITE_READONLY:
        return "the SQLite database is read-only for this process: the file, or the directory"
            + " holding it (SQLite writes its -wal and -shm files beside it), cannot be written;"
            + " fix the permissions or choose a writable path";
      case SQLITE_CANTOPEN:
        return "the SQLite database file cannot be opened: its directory is missing or not"
            + " writable, or the path names a directory; create the directory, fix its"
            + " permissions, or choose another path";
      case SQLITE_FULL:
        return "the disk holding the SQLite database is full";
      case SQLITE_CORRUPT:
        return "the SQLite database file is damaged (run PRAGMA integrity_check)";
      default:
        return null;
    }
  }

  // ---- connections
  // -------------------------------------------------------------------------------

  /**
   * Refuses a connection on which the store could fail at once under concurrency: one whose
   * transactions begin {@code DEFERRED} (a read-then-write transaction would get {@code
   * SQLITE_BUSY} without waiting) or whose busy timeout is zero. Warns about a journal other than
   * WAL, which works but makes readers and the writer wait for each other.
   *
   * @throws InvalidConfigurationException naming the setting to change
   */
  @Override
  public void checkConnection(Connection c) throws SQLException {
    String journal;
    int busyTimeout;
    try (Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("PRAGMA journal_mode")) {
        journal = rs.next() ? rs.getString(1) : "unknown";
      }
      try (ResultSet rs = st.executeQuery("PRAGMA busy_timeout")) {
        busyTimeout = rs.next() ? rs.getInt(1) : 0;
      }
    }
    if (busyTimeout <= 0) {
      throw new InvalidConfigurationException(
          "the SQLite connection has no busy timeout: a write would fail at once whenever another"
              + " connection holds the lock; set one (busy_timeout=10000 in the JDBC URL, or"
              + " SQLiteConfig.setBusyTimeout), or use SqliteDialect.dataSource(file)");
    }
    String mode = transactionMode(c);
    if (mode == null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "inbox: cannot tell the SQLite connection's transaction mode (the connection does not"
              + " unwrap to org.sqlite.SQLiteConnection); it must be IMMEDIATE");
    } else if (!mode.equals("IMMEDIATE")) {
      throw new InvalidConfigurationException(
          "the SQLite connection begins its transactions "
              + mode
              + ": a transaction that reads and then writes fails with SQLITE_BUSY, without"
              + " waiting, when another process wrote meanwhile; set transaction_mode=IMMEDIATE"
              + " in the JDBC URL (or SQLiteConfig.setTransactionMode(IMMEDIATE)), or use"
              + " SqliteDialect.dataSource(file)");
    }
    if (!"wal".equalsIgnoreCase(journal)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "inbox: the SQLite database uses journal mode '"
              + journal
              + "', not WAL: readers and the writer will wait for each other; set"
              + " journal_mode=WAL in the JDBC URL, or use SqliteDialect.dataSource(file)");
    }
  }

  /** The driver's transaction mode, or null if the connection is not the xerial driver's. */
  private static String transactionMode(Connection c) throws SQLException {
    try {
      if (!c.isWrapperFor(org.sqlite.SQLiteConnection.class)) {
        return null;
      }
      org.sqlite.SQLiteConnection sqlite = c.unwrap(org.sqlite.SQLiteConnection.class);
      return sqlite.getConnectionConfig().getTransactionMode().name();
    } catch (NoClassDefFoundError driverMissing) {
      return null;
    }
  }

  /**
   * A DataSource on the SQLite file {@code file} with what the store needs: WAL journal, {@code
   * BEGIN IMMEDIATE} transactions, {@link #DEFAULT_BUSY_TIMEOUT}, {@code synchronous=FULL} (a
   * commit is on disk when it returns). Each {@code getConnection()} opens a new connection; put a
   * pool in front of it for many short calls. Needs {@code org.xerial:sqlite-jdbc}.
   */
  public static DataSource dataSource(Path file) {
    return dataSource(file, DEFAULT_BUSY_TIMEOUT);
  }

  /**
   * Like {@link #dataSource(Path)}, with a busy timeout of {@code busyTimeout}. When a connection
   * cannot be opened the error says which: the directory is missing, the path is a directory, the
   * directory or the file is read-only, or the file is not an SQLite database.
   *
   * @throws InvalidConfigurationException if {@code busyTimeout} is not positive or above a day
   */
  public static DataSource dataSource(Path file, Duration busyTimeout) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(busyTimeout, "busyTimeout");
    if (busyTimeout.isNegative()
        || busyTimeout.isZero()
        || busyTimeout.compareTo(Duration.ofDays(1)) > 0) {
      throw new InvalidConfigurationException(
          "busyTimeout must be positive and at most a day, was " + busyTimeout);
    }
    return new SqliteFileDataSource(file.toAbsolutePath().normalize(), busyTimeout);
  }

  /** The JDBC URL with the settings the store needs, for tools that take a URL. */
  public static String jdbcUrl(Path file, Duration busyTimeout) {
    return "jdbc:sqlite:"
        + file.toAbsolutePath().normalize()
        + "?journal_mode=WAL&transaction_mode=IMMEDIATE&synchronous=FULL&busy_timeout="
        + busyTimeout.toMillis();
  }
}
