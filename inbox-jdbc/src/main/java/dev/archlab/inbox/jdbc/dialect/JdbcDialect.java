package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What differs between databases: SQL for the store's statements, how the database's clock is read,
 * how timestamps travel, and which SQLStates mean what. One subclass per database family; {@link
 * #detect(Connection)} picks one from {@link DatabaseMetaData}, and a user may pass one explicitly.
 *
 * <p>Every statement takes the table name from a validated identifier and everything else as bind
 * parameters; no user input is ever concatenated into SQL.
 */
public abstract class JdbcDialect {

  /** The store's columns, in the order every SELECT and RETURNING lists them. */
  public static final String COLUMNS =
      "consumer, message_id, state, attempts, lease_until, created_at, updated_at, last_error,"
          + " payload_hash, result";

  /** A short name such as "postgresql", used in messages and to find the DDL resource. */
  public abstract String name();

  /** An SQL expression for the database's current time, comparable with the stored columns. */
  public abstract String now();

  /** An SQL expression: the database's current time plus a bound number of microseconds. */
  public abstract String nowPlusMicros();

  /**
   * {@code INSERT} of a new PROCESSING record that does nothing if the key exists. Parameters:
   * consumer, message id, lease in microseconds, payload hash. When {@link #insertReturnsRecord()}
   * it returns the inserted row's {@link #COLUMNS}; otherwise its update count says whether it
   * inserted.
   */
  public final String insertIfAbsent(String table) {
    return insertIfAbsent(table, "'PROCESSING', 1, " + nowPlusMicros());
  }

  /**
   * {@code INSERT} of a new record that is DONE at once (attempts 1, no lease), doing nothing if
   * the key exists: the one-commit mode's claim, made visible only by the commit that also carries
   * the business writes. Parameters: consumer, message id, payload hash. Returns like {@link
   * #insertIfAbsent(String)}.
   */
  public final String insertDoneIfAbsent(String table) {
    return insertIfAbsent(table, "'DONE', 1, NULL");
  }

  /**
   * The insert-if-absent statement with {@code stateAttemptsLease} as the SQL for the state,
   * attempts and lease_until values; its parameters are consumer, message id, those of {@code
   * stateAttemptsLease}, payload hash.
   */
  protected abstract String insertIfAbsent(String table, String stateAttemptsLease);

  /** Whether {@link #insertIfAbsent} returns the inserted row in one round trip. */
  public abstract boolean insertReturnsRecord();

  /**
   * Wraps a single-row {@code UPDATE} so that it returns the updated row's {@link #COLUMNS}, or
   * returns null if the database cannot, in which case the store reads the row afterwards.
   */
  public abstract String updateReturning(String update);

  /**
   * Deletes up to a bound number of DONE rows updated before a bound time. Parameters: before,
   * [consumer if {@code perConsumer}], batch size.
   */
  public abstract String pruneBatch(String table, boolean perConsumer);

  /** A clause that limits a SELECT to a bound number of rows, placed at the end. */
  public String limit() {
    return "FETCH FIRST ? ROWS ONLY";
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
      return identifier.toUpperCase(java.util.Locale.ROOT);
    }
    if (meta.storesLowerCaseIdentifiers()) {
      return identifier.toLowerCase(java.util.Locale.ROOT);
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

  // ---- batches ---------------------------------------------------------------------------------

  /** Whether {@link #batchInsertIfAbsent} is available; otherwise ids are claimed one by one. */
  public boolean supportsBatchInsert() {
    return false;
  }

  /**
   * Inserts a new PROCESSING record for every request (one consumer) whose key does not exist, in
   * one statement, and returns the inserted records. Keys that exist are left alone and not
   * returned. Only called when {@link #supportsBatchInsert()}.
   */
  public List<InboxRecord> batchInsertIfAbsent(
      Connection c, String table, List<BeginRequest> requests, RecordReader reader)
      throws SQLException {
    throw new UnsupportedOperationException(name() + " has no batch insert");
  }

  /** Reads many keys of one consumer with the database's time as {@code db_now}. */
  public String selectManyWithNow(String table, int count) {
    return "SELECT "
        + COLUMNS
        + ", "
        + now()
        + " AS db_now FROM "
        + table
        + " WHERE consumer = ? AND message_id IN ("
        + placeholders(count, "?")
        + ")";
  }

  /** Binds a consumer and its message ids for {@link #selectManyWithNow}. */
  public void bindKeys(PreparedStatement ps, int from, String consumer, List<String> ids)
      throws SQLException {
    ps.setString(from, consumer);
    for (int i = 0; i < ids.size(); i++) {
      ps.setString(from + 1 + i, ids.get(i));
    }
  }

  /**
   * Marks DONE every claim (one consumer, distinct ids) that is still current, inside the caller's
   * transaction, and returns the DONE records. Claims no longer current are left alone and not
   * returned. This default locks the rows, decides, then updates exactly the current ones.
   */
  public List<InboxRecord> batchComplete(
      Connection c, String table, List<Claim> claims, RecordReader reader) throws SQLException {
    String consumer = claims.get(0).consumer();
    List<String> ids = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      ids.add(claim.messageId());
    }
    Map<String, InboxRecord> rows = new HashMap<>();
    Instant now = null;
    try (PreparedStatement ps =
        c.prepareStatement(selectManyWithNow(table, ids.size()) + " FOR UPDATE")) {
      bindKeys(ps, 1, consumer, ids);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          InboxRecord r = reader.read(rs);
          rows.put(r.messageId(), r);
          now = getInstant(rs, "db_now");
        }
      }
    }
    List<InboxRecord> current = new ArrayList<>();
    for (Claim claim : claims) {
      InboxRecord r = rows.get(claim.messageId());
      if (r != null
          && r.state() == RecordState.PROCESSING
          && r.attempts() == claim.fencingToken()) {
        current.add(r);
      }
    }
    if (current.isEmpty()) {
      return List.of();
    }
    String update =
        "UPDATE "
            + table
            + " SET state = 'DONE', lease_until = NULL, updated_at = ?, result = NULL"
            + " WHERE consumer = ? AND state = 'PROCESSING' AND (message_id, attempts) IN ("
            + placeholders(current.size(), "(?, ?)")
            + ")";
    try (PreparedStatement ps = c.prepareStatement(update)) {
      setInstant(ps, 1, now);
      ps.setString(2, consumer);
      int i = 3;
      for (InboxRecord r : current) {
        ps.setString(i++, r.messageId());
        ps.setInt(i++, r.attempts());
      }
      int updated = ps.executeUpdate();
      if (updated != current.size()) {
        // The rows are locked by this transaction; anything else means the lock did not hold.
        throw new SQLException(
            "batch complete updated " + updated + " of " + current.size() + " locked rows");
      }
    }
    List<InboxRecord> done = new ArrayList<>(current.size());
    for (InboxRecord r : current) {
      done.add(r.transitioned(RecordState.DONE, r.attempts(), null, now, r.lastError()));
    }
    return done;
  }

  /** {@code count} copies of {@code each}, comma-separated. */
  protected static String placeholders(int count, String each) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(each);
    }
    return sb.toString();
  }

  /** Pools and drivers report refused and lost connections as these types, state or not. */
  private static boolean connectionClass(SQLException e) {
    return e instanceof java.sql.SQLTransientConnectionException
        || e instanceof java.sql.SQLNonTransientConnectionException
        || e instanceof java.sql.SQLRecoverableException;
  }

  /**
   * Picks the dialect for the database behind {@code connection}.
   *
   * @throws InvalidConfigurationException naming the product if no dialect supports it
   */
  public static JdbcDialect detect(Connection connection) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    String product = meta.getDatabaseProductName();
    String lower = product == null ? "" : product.toLowerCase(java.util.Locale.ROOT);
    if (lower.contains("postgresql")) {
      return new PostgresDialect();
    }
    if (lower.contains("mariadb")) {
      return new MySqlDialect(true);
    }
    if (lower.contains("mysql")) {
      // MariaDB servers may still report "MySQL"; their version string says MariaDB.
      String version = meta.getDatabaseProductVersion();
      boolean maria =
          version != null && version.toLowerCase(java.util.Locale.ROOT).contains("mariadb");
      return new MySqlDialect(maria);
    }
    if (lower.contains("h2")) {
      return new H2Dialect();
    }
    if (lower.contains("sqlite")) {
      return new SqliteDialect();
    }
    throw new InvalidConfigurationException(
        "no inbox dialect for database product '"
            + product
            + "'; supported: PostgreSQL, MySQL, MariaDB, SQLite, H2 (pass a JdbcDialect explicitly to"
            + " override)");
  }

  @Override
  public String toString() {
    return name();
  }
}
