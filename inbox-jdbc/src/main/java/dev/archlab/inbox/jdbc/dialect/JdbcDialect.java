package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.jdbc.TableName;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What differs between databases: how the database is recognised (product name, JDBC URL prefixes),
 * its default isolation level, how its clock is read and timestamps travel, the catalogue of
 * statements on the inbox table ({@link #statements}), how lock waits are bounded, and which
 * SQLStates mean what. One subclass per database; {@link Dialects} lists them, {@link
 * #detect(Connection)} picks one from {@link DatabaseMetaData}, and a user may pass one explicitly.
 *
 * <p>Every statement takes the table name from a validated identifier and everything else as bind
 * parameters; no user input is ever concatenated into SQL.
 */
public abstract class JdbcDialect {

  /** A short name such as "postgresql", used in messages and to find the DDL resource. */
  public abstract String name();

  /** The product as people write it, such as "PostgreSQL", for messages. */
  public abstract String productName();

  /**
   * The JDBC URL prefixes of this database's drivers, lower case, such as {@code "jdbc:h2:"}; tools
   * (the {@code inbox} command) accept a URL only if some registered dialect claims its prefix.
   */
  public abstract List<String> urlPrefixes();

  /**
   * The database's own default isolation level, a {@link Connection} {@code TRANSACTION_…}
   * constant. Pools that want it named (the {@code inbox} command's) set this one; the store's
   * guarantees do not depend on a stricter level. This default: READ COMMITTED.
   */
  public int defaultIsolation() {
    return Connection.TRANSACTION_READ_COMMITTED;
  }

  /**
   * Whether the database lets one transaction write at a time (SQLite: one write lock per file), so
   * that while any transaction that may write is open, a write on another connection waits for it
   * to end. The store then runs every write of a caller-transaction delivery (claim, failure,
   * extension) in the caller's transaction instead of on a connection of its own, which would wait
   * for that very transaction. This default: false, writers of different rows proceed side by side.
   */
  public boolean oneWriterAtATime() {
    return false;
  }

  /**
   * {@code jdbcUrl}, a URL of this database, with the connection settings the store needs here
   * added where the URL does not name them; settings it names are kept as they are (the store
   * refuses a wrong one when it connects, see {@link #checkConnection}). For tools that take a URL
   * from a user. This default returns the URL unchanged.
   */
  public String withRequiredSettings(String jdbcUrl) {
    return jdbcUrl;
  }

  /**
   * The URL of a database file in {@code directory} with the settings the store needs, if this
   * database can be a tool's embedded default: a file that several processes share and whose
   * commits survive a kill of any of them. Getting it may point the driver's own files into {@code
   * directory}. This default: empty (a server, or, like H2, not kill-safe).
   */
  public Optional<String> embeddedUrl(Path directory) {
    return Optional.empty();
  }

  /**
   * Whether {@code e} or one of its causes was raised by this database's driver, so that its vendor
   * codes can be read before a dialect is detected (for a database without SQLStates). This
   * default: false.
   */
  public boolean raisedByDriver(SQLException e) {
    return false;
  }

  /**
   * Whether {@code e}, which no registered dialect's driver claims ({@link #raisedByDriver}),
   * carries a vendor code only this database sets, so this dialect's rules read it before a dialect
   * is detected. This default: false.
   */
  public boolean ownsVendorCode(SQLException e) {
    return false;
  }

  /**
   * Whether this dialect's error rules are the ones read for an error that no registered dialect
   * claims (by its driver or its vendor code) before a dialect is detected: the generic SQLState
   * rules plus codes no other driver sets. Exactly one registered dialect says so. This default:
   * false.
   */
  public boolean readsUnclaimedErrors() {
    return false;
  }

  /**
   * Whether this dialect serves a database whose metadata reports {@code product} and {@code
   * version} (either may be null). This default: the product name contains {@link #productName()},
   * ignoring case.
   */
  protected boolean recognises(String product, String version) {
    return lower(product).contains(lower(productName()));
  }

  /** {@code s} in lower case; null as empty. */
  protected static String lower(String s) {
    return s == null ? "" : s.toLowerCase(Locale.ROOT);
  }

  /** An SQL expression for the database's current time, comparable with the stored columns. */
  public abstract String now();

  /** An SQL expression: the database's current time plus a bound number of microseconds. */
  public abstract String nowPlusMicros();

  /**
   * The catalogue of every statement on {@code table} in this database. A store builds it once.
   * This default is the standard catalogue; a dialect whose database writes some statement
   * differently returns a subclass that overrides just that statement.
   */
  public Statements statements(TableName table) {
    return new Statements(this, table);
  }

  /**
   * How a one-commit claim bounds its wait for a concurrent duplicate's row lock to {@code timeout}
   * (see {@code OneCommitConsumer.Builder#lockTimeout}). This default refuses: a dialect that
   * cannot bound the wait must say so rather than ignore the setting.
   *
   * @throws InvalidConfigurationException naming the database, if it cannot bound the wait
   */
  public LockTimeoutPlan claimLockTimeout(Duration timeout) {
    throw new InvalidConfigurationException(
        "lockTimeout is not supported by the inbox dialect '"
            + name()
            + "': it cannot bound a claim's lock wait on this database; remove lockTimeout(...)"
            + " and bound the wait on the connections instead");
  }

  /** Whole seconds, rounded up, at least one: MySQL and MariaDB lock waits have no finer unit. */
  protected static long ceilSeconds(Duration timeout) {
    long millis = Math.max(1, timeout.toMillis());
    return Math.max(1, (millis + 999) / 1000);
  }

  /** The classpath resource holding this database's DDL for a table named {@code inbox}. */
  public String schemaResource() {
    return "dev/archlab/inbox/jdbc/schema/" + name() + "/V1__create_inbox.sql";
  }

  // ---- catalog lookups and DDL -----------------------------------------------------------------

  /**
   * Whether the schema (on MySQL and MariaDB: the database) {@code namespace} exists. Like the
   * other catalog lookups it only reads the catalog: it takes no lock that a transaction on the
   * inbox table holds or waits for, so it never queues behind one.
   */
  public boolean namespaceExists(Connection c, String namespace) throws SQLException {
    return exists(
        c, "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", fold(c, namespace));
  }

  /**
   * Whether table {@code table} exists in {@code namespace}, or in the connection's current schema
   * (MySQL and MariaDB: database) when {@code namespace} is null. Reads the catalog only.
   */
  public boolean tableExists(Connection c, String namespace, String table) throws SQLException {
    return exists(
        c,
        "SELECT 1 FROM information_schema.TABLES WHERE "
            + inNamespace(namespace)
            + " AND TABLE_NAME = ?",
        args(c, namespace, table));
  }

  /**
   * Whether {@code table} (qualified as in {@link #tableExists}) has an index named {@code index}.
   * Reads the catalog only.
   */
  public boolean indexExists(Connection c, String namespace, String table, String index)
      throws SQLException {
    return exists(
        c,
        "SELECT 1 FROM "
            + indexCatalog()
            + " WHERE "
            + inNamespace(namespace)
            + " AND TABLE_NAME = ? AND INDEX_NAME = ?",
        args(c, namespace, table, index));
  }

  /** The SQL expression for the connection's current schema (MySQL and MariaDB: database). */
  protected String currentNamespace() {
    return "CURRENT_SCHEMA";
  }

  /** The information_schema view listing indexes by TABLE_SCHEMA, TABLE_NAME and INDEX_NAME. */
  protected String indexCatalog() {
    return "information_schema.STATISTICS";
  }

  private String inNamespace(String namespace) {
    return "TABLE_SCHEMA = " + (namespace == null ? currentNamespace() : "?");
  }

  private static String[] args(Connection c, String namespace, String... names)
      throws SQLException {
    List<String> out = new ArrayList<>();
    if (namespace != null) {
      out.add(fold(c, namespace));
    }
    for (String name : names) {
      out.add(fold(c, name));
    }
    return out.toArray(String[]::new);
  }

  /** Whether {@code sql}, with {@code args} bound in order, returns a row. */
  protected static boolean exists(Connection c, String sql, String... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * An unquoted identifier as the database stores it: upper case (H2's default), lower case
   * (PostgreSQL) or as written (MySQL and MariaDB on Linux), as its metadata says.
   */
  protected static String fold(Connection c, String identifier) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    if (meta.storesUpperCaseIdentifiers()) {
      return identifier.toUpperCase(Locale.ROOT);
    }
    if (meta.storesLowerCaseIdentifiers()) {
      return identifier.toLowerCase(Locale.ROOT);
    }
    return identifier;
  }

  /**
   * How a DDL statement of {@code createSchemaIfMissing} bounds its wait for a lock on the inbox
   * table to about {@code timeout}, so that it never sits in the lock queue (where every later
   * writer would queue behind it) longer than that. Run in a transaction of its own: {@code
   * before}, then the prefixed DDL, then {@code after} (also when it failed). This default sets
   * nothing: a dialect whose DDL can wait for locks must override it.
   */
  public LockTimeoutPlan ddlLockTimeout(Duration timeout) {
    return new LockTimeoutPlan(List.of(), "", List.of());
  }

  /** Binds an instant to a timestamp parameter. */
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    ps.setObject(index, instant == null ? null : instant.atOffset(ZoneOffset.UTC));
  }

  /** Reads a timestamp column as an instant; null stays null. */
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /** What an SQL error means, from its SQLState and vendor code. */
  public SqlErrorKind classify(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return connectionClass(e) ? SqlErrorKind.CONNECTION : SqlErrorKind.OTHER;
    }
    if (state.startsWith("08")) {
      return SqlErrorKind.CONNECTION;
    }
    if (state.equals("23505")) {
      return SqlErrorKind.UNIQUE_VIOLATION;
    }
    if (state.equals("40001") || state.equals("40P01")) {
      return SqlErrorKind.SERIALIZATION;
    }
    if (state.equals("42P01")
        || state.equals("42S02")
        || state.equals("42S04")
        || state.equals("42S22")) {
      return SqlErrorKind.SCHEMA_MISSING;
    }
    if (state.equals("28000") || state.equals("28P01")) {
      return SqlErrorKind.ACCESS_DENIED;
    }
    if (state.equals("3D000")) {
      return SqlErrorKind.DATABASE_MISSING;
    }
    if (state.equals("3F000")) {
      return SqlErrorKind.NAMESPACE_MISSING;
    }
    return connectionClass(e) ? SqlErrorKind.CONNECTION : SqlErrorKind.OTHER;
  }

  /**
   * A sentence saying what {@code e} means on this database and what to do about it, for the
   * message of the exception the store throws; null when the generic wording fits. Used by
   * databases without SQLStates, whose vendor codes say more than the driver's message.
   */
  public String explain(SQLException e) {
    return null;
  }

  /**
   * Checks, once, the first connection the store uses, for settings the store cannot work correctly
   * without. This default checks nothing.
   *
   * @throws dev.archlab.inbox.InvalidConfigurationException naming the setting to change
   */
  public void checkConnection(Connection c) throws SQLException {}

  /** Pools and drivers report refused and lost connections as these types, state or not. */
  private static boolean connectionClass(SQLException e) {
    return e instanceof java.sql.SQLTransientConnectionException
        || e instanceof java.sql.SQLNonTransientConnectionException
        || e instanceof java.sql.SQLRecoverableException;
  }

  /**
   * Picks the registered dialect (see {@link Dialects}) for the database behind {@code connection}.
   *
   * @throws InvalidConfigurationException naming the product if no dialect supports it
   */
  public static JdbcDialect detect(Connection connection) throws SQLException {
    return Dialects.detect(connection);
  }

  @Override
  public String toString() {
    return name();
  }
}
