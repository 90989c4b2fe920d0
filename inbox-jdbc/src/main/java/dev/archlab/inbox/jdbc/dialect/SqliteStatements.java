package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.store.BeginRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * SQLite's statements (see {@link SqliteDialect}): claims by {@code ON CONFLICT DO NOTHING
 * RETURNING}, fenced updates with {@code RETURNING}, {@code LIMIT ?} for bounded reads, prune
 * through a bounded {@code rowid} sub-select, and batch claims and completions as one multi-row
 * statement each. Immutable and thread-safe.
 */
final class SqliteStatements extends Statements {

  SqliteStatements(SqliteDialect dialect, TableName table) {
    super(dialect, table);
  }

  @Override
  protected String insertSql(String stateAttemptsLease) {
    return super.insertSql(stateAttemptsLease) + " ON CONFLICT DO NOTHING RETURNING " + COLUMNS;
  }

  @Override
  public boolean insertReturnsRecord() {
    return true;
  }

  @Override
  protected String returningSql(String update) {
    return update + " RETURNING " + COLUMNS;
  }

  @Override
  protected String limitSql() {
    return "LIMIT ?";
  }

  /** SQLite has no {@code DELETE … LIMIT} unless built with it: a bounded rowid sub-select. */
  @Override
  protected String pruneSql(boolean perConsumer) {
    return "DELETE FROM "
        + table
        + " WHERE rowid IN (SELECT rowid FROM "
        + table
        + " WHERE state = 'DONE' AND updated_at < ?"
        + (perConsumer ? " AND consumer = ?" : "")
        + " LIMIT ?)";
  }

  @Override
  public boolean supportsBatchInsert() {
    return true;
  }

  @Override
  public List<InboxRecord> batchInsertIfAbsent(
      Connection c, List<BeginRequest> requests, boolean done, String prefix) throws SQLException {
    String stateLease = done ? "'DONE', 1, NULL" : "'PROCESSING', 1, " + dialect.nowPlusMicros();
    String row = "(?, ?, " + stateLease + ", " + nowPair() + ", ?)";
    String sql =
        prefix
            + "INSERT INTO "
            + table
            + INSERT_COLUMNS
            + " VALUES "
            + placeholders(requests.size(), row)
            + " ON CONFLICT DO NOTHING RETURNING "
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

  private String nowPair() {
    return dialect.now() + ", " + dialect.now();
  }

  /**
   * One fenced statement: only rows whose (id, attempts) pair is still PROCESSING are updated and
   * returned. The transaction holds the file's write lock from its {@code BEGIN IMMEDIATE}, so no
   * row can change between the check and the write.
   */
  @Override
  public List<InboxRecord> batchComplete(Connection c, List<Claim> claims) throws SQLException {
    String sql =
        "UPDATE "
            + table
            + " SET state = 'DONE', lease_until = NULL, updated_at = "
            + dialect.now()
            + ", result = NULL WHERE consumer = ?"
            + STILL_PROCESSING
            + " AND (message_id, attempts) IN (VALUES "
            + placeholders(claims.size(), "(?, ?)")
            + ") RETURNING "
            + COLUMNS;
    List<InboxRecord> done = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, claims.get(0).consumer());
      int i = 2;
      for (Claim claim : claims) {
        ps.setString(i++, claim.messageId());
        ps.setInt(i++, claim.fencingToken());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          done.add(readRecord(rs));
        }
      }
    }
    return done;
  }
}
