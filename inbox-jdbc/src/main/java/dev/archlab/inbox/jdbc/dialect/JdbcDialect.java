package dev.archlab.inbox.jdbc.dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

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
  public abstract String insertIfAbsent(String table);

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
   * Statements that bound how long the current transaction waits for a row lock, or null when the
   * database has no per-transaction setting. Run inside the transaction.
   */
  public abstract String lockTimeoutStatement(Duration timeout);

  /** The classpath resource holding this database's DDL for a table named {@code inbox}. */
  public String schemaResource() {
    return "dev/archlab/inbox/jdbc/schema/" + name() + "/V1__create_inbox.sql";
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
      return SqlErrorKind.OTHER;
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
    if (state.equals("42P01") || state.equals("42S02") || state.equals("42S22")) {
      return SqlErrorKind.SCHEMA_MISSING;
    }
    if (state.equals("28000") || state.equals("28P01")) {
      return SqlErrorKind.ACCESS_DENIED;
    }
    return SqlErrorKind.OTHER;
  }

  /** Whether the database aborts the whole transaction after any failed statement. */
  public boolean failedStatementAbortsTransaction() {
    return false;
  }

  /**
   * Picks the dialect for the database behind {@code connection}.
   *
   * @throws IllegalArgumentException naming the product if no dialect supports it
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
    throw new IllegalArgumentException(
        "no inbox dialect for database product '"
            + product
            + "'; supported: PostgreSQL, MySQL, MariaDB, H2 (pass a JdbcDialect explicitly to"
            + " override)");
  }

  @Override
  public String toString() {
    return name();
  }
}
