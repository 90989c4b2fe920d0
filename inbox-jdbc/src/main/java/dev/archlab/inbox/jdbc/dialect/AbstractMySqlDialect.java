package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.jdbc.TableName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * What MySQL 8 and MariaDB share ({@link MySqlDialect}, {@link MariaDbDialect}). Timestamps are
 * {@code DATETIME(6)} holding UTC, written from {@code UTC_TIMESTAMP(6)}, so neither the server's
 * nor the session's time zone matters. Claims use {@code INSERT IGNORE}, safe here because every
 * value is validated before it is bound (nothing can be truncated into a warning). Both default to
 * REPEATABLE READ and report errors by the same vendor codes.
 */
public abstract class AbstractMySqlDialect extends JdbcDialect {

  @Override
  public int defaultIsolation() {
    return Connection.TRANSACTION_REPEATABLE_READ;
  }

  @Override
  public String now() {
    return "UTC_TIMESTAMP(6)";
  }

  @Override
  public String nowPlusMicros() {
    return "(UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)";
  }

  @Override
  public Statements statements(TableName table) {
    return new MySqlStatements(this, table);
  }

  /** Claims by {@code INSERT IGNORE}, and {@code LIMIT} for bounded statements. */
  protected static class MySqlStatements extends Statements {

    protected MySqlStatements(AbstractMySqlDialect dialect, TableName table) {
      super(dialect, table);
    }

    @Override
    protected String insertSql(String stateAttemptsLease) {
      return "INSERT IGNORE INTO " + table + INSERT_COLUMNS + valuesSql(stateAttemptsLease);
    }

    @Override
    protected String limitSql() {
      return "LIMIT ?";
    }
  }

  @Override
  protected String currentNamespace() {
    return "DATABASE()";
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    ps.setObject(index, instant == null ? null : LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
  }

  @Override
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime value = rs.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  /** The MariaDB and MySQL drivers' own exceptions, by their class. */
  @Override
  public boolean raisedByDriver(SQLException e) {
    String type = e.getClass().getName();
    return type.startsWith("org.mariadb.") || type.startsWith("com.mysql.");
  }

  /**
   * A server error code in MySQL's 1000-4999 range (2000 is a client's "unknown error"), which
   * PostgreSQL's drivers never set and H2 does not use: a pool's copy of a server error keeps it.
   */
  @Override
  public boolean ownsVendorCode(SQLException e) {
    int code = e.getErrorCode();
    return code >= 1000 && code < 5000 && code != 2000;
  }

  @Override
  public SqlErrorKind classify(SQLException e) {
    switch (e.getErrorCode()) {
      case 1062:
        return SqlErrorKind.UNIQUE_VIOLATION;
      case 1213:
        return SqlErrorKind.SERIALIZATION;
      case 1205:
        return SqlErrorKind.LOCK_TIMEOUT;
      case 1146:
      case 1054:
        return SqlErrorKind.SCHEMA_MISSING;
      case 1045:
      case 1044:
        return SqlErrorKind.ACCESS_DENIED;
      case 1049: // unknown database: the connection's, or the one qualifying a table name
        return SqlErrorKind.DATABASE_MISSING;
      case 1927: // MariaDB: connection was killed
        return SqlErrorKind.CONNECTION;
      default:
        return super.classify(e);
    }
  }
}
