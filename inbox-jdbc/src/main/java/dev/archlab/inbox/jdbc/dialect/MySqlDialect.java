package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.store.BeginRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * MySQL 8 and MariaDB 10.6 and later. Timestamps are {@code DATETIME(6)} holding UTC, written from
 * {@code UTC_TIMESTAMP(6)}, so neither the server's nor the session's time zone matters. Claims use
 * {@code INSERT IGNORE}, safe here because every value is validated before it is bound (nothing can
 * be truncated into a warning). MariaDB returns the inserted row with {@code RETURNING}; MySQL
 * reads it back.
 */
public class MySqlDialect extends JdbcDialect {

  private final boolean mariaDb;

  /**
   * @param mariaDb true for MariaDB, which supports {@code INSERT … RETURNING}
   */
  public MySqlDialect(boolean mariaDb) {
    this.mariaDb = mariaDb;
  }

  /** "mariadb" or "mysql"; also the folder of the shipped DDL, whose collations differ. */
  @Override
  public String name() {
    return mariaDb ? "mariadb" : "mysql";
  }

  public boolean isMariaDb() {
    return mariaDb;
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
  protected String insertIfAbsent(String table, String stateAttemptsLease) {
    return "INSERT IGNORE INTO "
        + table
        + " (consumer, message_id, state, attempts, lease_until, created_at, updated_at,"
        + " payload_hash) VALUES (?, ?, "
        + stateAttemptsLease
        + ", UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?)"
        + (mariaDb ? " RETURNING " + COLUMNS : "");
  }

  @Override
  public boolean insertReturnsRecord() {
    return mariaDb;
  }

  @Override
  public String updateReturning(String update) {
    return null;
  }

  @Override
  public String limit() {
    return "LIMIT ?";
  }

  @Override
  public String pruneBatch(String table, boolean perConsumer) {
    return "DELETE FROM "
        + table
        + " WHERE state = 'DONE' AND updated_at < ?"
        + (perConsumer ? " AND consumer = ?" : "")
        + " LIMIT ?";
  }

  /**
   * MariaDB: {@code SET STATEMENT innodb_lock_wait_timeout = N FOR} the claim's insert, which is
   * where a duplicate waits; no statement more and no session change. MySQL 8 has no such prefix
   * for this variable, so the session value is saved in a session variable, set, and put back right
   * after the claim. Either way the timeout is in whole seconds, rounded up, at least one.
   */
  @Override
  public LockTimeoutPlan claimLockTimeout(Duration timeout) {
    long seconds = ceilSeconds(timeout);
    if (mariaDb) {
      return new LockTimeoutPlan(
          List.of(), "SET STATEMENT innodb_lock_wait_timeout = " + seconds + " FOR ", List.of());
    }
    return new LockTimeoutPlan(
        List.of(
            "SET @inbox_saved_lock_wait = @@SESSION.innodb_lock_wait_timeout,"
                + " SESSION innodb_lock_wait_timeout = "
                + seconds),
        "",
        List.of("SET SESSION innodb_lock_wait_timeout = @inbox_saved_lock_wait"));
  }

  /**
   * DDL waits for metadata locks, bounded by {@code lock_wait_timeout} in whole seconds. MariaDB:
   * {@code SET STATEMENT … FOR} the DDL, rounded down (0 means: do not wait at all). MySQL 8 has no
   * such prefix for it: the session value is saved, set (rounded up, at least 1 s, MySQL's minimum)
   * and put back.
   */
  @Override
  public LockTimeoutPlan ddlLockTimeout(Duration timeout) {
    if (mariaDb) {
      return new LockTimeoutPlan(
          List.of(),
          "SET STATEMENT lock_wait_timeout = " + timeout.toSeconds() + " FOR ",
          List.of());
    }
    return new LockTimeoutPlan(
        List.of(
            "SET @inbox_saved_ddl_wait = @@SESSION.lock_wait_timeout, SESSION lock_wait_timeout = "
                + ceilSeconds(timeout)),
        "",
        List.of("SET SESSION lock_wait_timeout = @inbox_saved_ddl_wait"));
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

  /** MariaDB only: MySQL cannot tell which rows a multi-row insert added. */
  @Override
  public boolean supportsBatchInsert() {
    return mariaDb;
  }

  @Override
  public List<InboxRecord> batchInsertIfAbsent(
      Connection c, String table, List<BeginRequest> requests, RecordReader reader)
      throws SQLException {
    String row =
        "(?, ?, 'PROCESSING', 1, " + nowPlusMicros() + ", UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?)";
    String sql =
        "INSERT IGNORE INTO "
            + table
            + " (consumer, message_id, state, attempts, lease_until, created_at, updated_at,"
            + " payload_hash) VALUES "
            + placeholders(requests.size(), row)
            + " RETURNING "
            + COLUMNS;
    List<InboxRecord> inserted = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (BeginRequest r : requests) {
        ps.setString(i++, r.consumer());
        ps.setString(i++, r.messageId());
        ps.setLong(i++, r.lease().toNanos() / 1_000);
        ps.setString(i++, r.payloadHash());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          inserted.add(reader.read(rs));
        }
      }
    }
    return inserted;
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
