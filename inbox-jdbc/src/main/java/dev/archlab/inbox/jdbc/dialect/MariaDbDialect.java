package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.store.BeginRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB 10.6 and later. Unlike MySQL it returns the inserted rows ({@code INSERT … RETURNING}),
 * so a claim takes one round trip and a batch is claimed by one multi-row insert; and it bounds a
 * lock wait for one statement ({@code SET STATEMENT … FOR}) without touching the session.
 */
public class MariaDbDialect extends AbstractMySqlDialect {

  /** "mariadb"; also the folder of the shipped DDL, whose collation differs from MySQL's. */
  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public String productName() {
    return "MariaDB";
  }

  @Override
  public List<String> urlPrefixes() {
    return List.of("jdbc:mariadb:");
  }

  /** "MariaDB", or "MySQL" with a version string that says MariaDB (older servers and drivers). */
  @Override
  protected boolean recognises(String product, String version) {
    return lower(product).contains("mariadb")
        || (lower(product).contains("mysql") && lower(version).contains("mariadb"));
  }

  @Override
  public Statements statements(TableName table) {
    return new MariaDbStatements(this, table);
  }

  /**
   * {@code SET STATEMENT innodb_lock_wait_timeout = N FOR} the claim's insert, which is where a
   * duplicate waits; no statement more and no session change. Whole seconds, rounded up, at least
   * one.
   */
  @Override
  public LockTimeoutPlan claimLockTimeout(Duration timeout) {
    return new LockTimeoutPlan(
        List.of(),
        "SET STATEMENT innodb_lock_wait_timeout = " + ceilSeconds(timeout) + " FOR ",
        List.of());
  }

  /**
   * DDL waits for metadata locks, bounded by {@code lock_wait_timeout} in whole seconds: {@code SET
   * STATEMENT … FOR} the DDL, rounded down (0 means: do not wait at all).
   */
  @Override
  public LockTimeoutPlan ddlLockTimeout(Duration timeout) {
    return new LockTimeoutPlan(
        List.of(), "SET STATEMENT lock_wait_timeout = " + timeout.toSeconds() + " FOR ", List.of());
  }

  /** The MySQL statements, with claims returning their rows, one by one or many at once. */
  private static final class MariaDbStatements extends MySqlStatements {

    MariaDbStatements(MariaDbDialect dialect, TableName table) {
      super(dialect, table);
    }

    @Override
    protected String insertSql(String stateAttemptsLease) {
      return super.insertSql(stateAttemptsLease) + " RETURNING " + COLUMNS;
    }

    @Override
    public boolean insertReturnsRecord() {
      return true;
    }

    @Override
    public boolean supportsBatchInsert() {
      return true;
    }

    @Override
    public List<InboxRecord> batchInsertIfAbsent(
        Connection c, List<BeginRequest> requests, boolean done, String prefix)
        throws SQLException {
      String row =
          (done ? "(?, ?, 'DONE', 1, NULL" : "(?, ?, 'PROCESSING', 1, " + dialect.nowPlusMicros())
              + ", "
              + dialect.now()
              + ", "
              + dialect.now()
              + ", ?)";
      String sql =
          prefix
              + "INSERT IGNORE INTO "
              + table
              + INSERT_COLUMNS
              + " VALUES "
              + placeholders(requests.size(), row)
              + " RETURNING "
              + COLUMNS;
      List<InboxRecord> inserted = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        int i = 1;
        for (BeginRequest r : requests) {
          ps.setString(i++, r.consumer());
          ps.setString(i++, r.messageId());
          if (!done) {
            ps.setLong(i++, r.lease().toNanos() / 1_000);
          }
          ps.setString(i++, r.payloadHash());
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            inserted.add(readRecord(rs));
          }
        }
      }
      return inserted;
    }
  }
}
