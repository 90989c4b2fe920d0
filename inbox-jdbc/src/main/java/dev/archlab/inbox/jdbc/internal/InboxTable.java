package dev.archlab.inbox.jdbc.internal;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.jdbc.TransactionalEffect;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.jdbc.dialect.Statements.FencedSql;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.RecordStateMachine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The inbox table's operations on a connection the caller holds: claim (insert-if-absent, then the
 * decision on the record read with the database's time), the fenced updates (complete, fail, dead,
 * extend), reads and the one-commit mode's DONE insert. Nothing here borrows a connection, commits
 * or translates errors: the store, the consumers and {@link TransactionalEffect} own the
 * transaction, and {@link JdbcRunner} translates what escapes. Each operation takes the statements
 * already resolved for the connection (by the runner, or by the consumer that owns the
 * transaction), so nothing here reaches back for the dialect.
 */
public final class InboxTable {

  public BeginResult beginOn(Connection c, Statements s, BeginRequest r) throws SQLException {
    return beginOn(c, s, r, true);
  }

  /**
   * Begins on {@code c}; with {@code insertFirst} false the caller has just found the key taken
   * (the one-commit mode's DONE insert), so the first round starts by reading it.
   */
  public BeginResult beginOn(Connection c, Statements s, BeginRequest r, boolean insertFirst)
      throws SQLException {
    for (int round = 0; round < 100; round++) {
      InboxRecord inserted = round == 0 && !insertFirst ? null : tryInsert(c, s, r);
      if (inserted != null) {
        return BeginResult.of(Kind.CLAIMED, inserted, inserted.createdAt());
      }
      Snapshot snap = selectWithNow(c, s, r.consumer(), r.messageId());
      if (snap == null) {
        continue; // pruned between the insert and the read: insert again
      }
      BeginResult decided = decide(c, s, r, snap);
      if (decided != null) {
        return decided;
      }
      // Another instance changed the record between our read and our update: look again.
    }
    throw new InboxException(
        "begin for message '" + r.messageId() + "' kept racing with other instances; giving up");
  }

  /**
   * Decides a begin for an existing record read at the database time {@code snap.now}: an answer
   * without writing, or a takeover (or death) by an UPDATE conditioned on exactly what was read.
   * Returns null if that UPDATE lost a race, so the caller reads again.
   */
  public BeginResult decide(Connection c, Statements s, BeginRequest r, Snapshot snap)
      throws SQLException {
    InboxRecord cur = snap.record;
    Instant now = snap.now;
    BeginResult decided = RecordStateMachine.begin(r, cur, now);
    if (!RecordStateMachine.writes(decided.kind())) {
      return decided;
    }
    InboxRecord next = decided.record();
    try (PreparedStatement ps = c.prepareStatement(s.takeover)) {
      ps.setString(1, next.state().name());
      s.dialect.setInstant(ps, 2, next.leaseUntil());
      s.dialect.setInstant(ps, 3, now);
      ps.setString(4, next.lastError());
      ps.setInt(5, next.attempts());
      ps.setString(6, r.consumer());
      ps.setString(7, r.messageId());
      ps.setInt(8, cur.attempts());
      s.dialect.setInstant(ps, 9, now);
      return ps.executeUpdate() == 1 ? decided : null;
    }
  }

  /** Inserts {@code r}'s key as a new PROCESSING claim; the record, or null if the key exists. */
  public InboxRecord tryInsert(Connection c, Statements s, BeginRequest r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(s.insert)) {
      ps.setString(1, r.consumer());
      ps.setString(2, r.messageId());
      ps.setLong(3, micros(r.lease()));
      ps.setString(4, r.payloadHash());
      return insertedRecord(c, s, ps, r);
    }
  }

  /**
   * Inserts {@code r}'s key as DONE (attempts 1, no lease) on {@code c} if it is absent, and
   * returns the new record, or null if the key exists. Meant for an open transaction whose commit
   * also carries the effect; until then the row lock keeps concurrent duplicates waiting. {@code
   * prefix} (a dialect's per-statement lock timeout, or empty) goes in front of the insert.
   */
  public InboxRecord insertDoneOn(Connection c, Statements s, BeginRequest r, String prefix)
      throws SQLException {
    String sql = prefix.isEmpty() ? s.insertDone : prefix + s.insertDone;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, r.consumer());
      ps.setString(2, r.messageId());
      ps.setString(3, r.payloadHash());
      return insertedRecord(c, s, ps, r);
    }
  }

  /** Stores {@code result} on a DONE record written by this transaction; returns the record. */
  public InboxRecord keepResultOn(Connection c, Statements s, InboxRecord done, byte[] result)
      throws SQLException {
    ArgumentChecks.requireResultSize(result);
    try (PreparedStatement ps = c.prepareStatement(s.keepResult)) {
      ps.setBytes(1, result);
      ps.setString(2, done.consumer());
      ps.setString(3, done.messageId());
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException(
            "the DONE record of message '"
                + done.messageId()
                + "' vanished inside its transaction");
      }
    }
    return new InboxRecord(
        done.consumer(),
        done.messageId(),
        done.state(),
        done.attempts(),
        done.leaseUntil(),
        done.createdAt(),
        done.updatedAt(),
        done.lastError(),
        done.payloadHash(),
        result);
  }

  /** Runs an insert-if-absent and returns the inserted record, or null if the key existed. */
  private InboxRecord insertedRecord(
      Connection c, Statements s, PreparedStatement ps, BeginRequest r) throws SQLException {
    if (s.insertReturnsRecord()) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? s.readRecord(rs) : null;
      }
    }
    int inserted;
    try {
      inserted = ps.executeUpdate();
    } catch (SQLException e) {
      if (s.dialect.classify(e) == SqlErrorKind.UNIQUE_VIOLATION) {
        return null; // only H2 gets here; it rolls back just this statement
      }
      throw e;
    }
    return inserted == 1 ? select(c, s, r.consumer(), r.messageId()) : null;
  }

  public InboxRecord completeOn(Connection c, Statements s, Claim claim, byte[] result)
      throws SQLException {
    Objects.requireNonNull(claim, "claim");
    return fenced(
        c,
        s,
        claim,
        s.complete,
        ps -> {
          ps.setBytes(1, result);
          return 2;
        });
  }

  /** Binds the statement-specific parameters and returns the index of the first key parameter. */
  @FunctionalInterface
  public interface Binder {
    int bind(PreparedStatement ps) throws SQLException;
  }

  /**
   * Runs a fenced UPDATE ({@code … WHERE consumer = ? AND message_id = ? AND attempts = ? AND state
   * = 'PROCESSING'}) and returns the updated row, or explains why no row matched.
   */
  private InboxRecord fenced(Connection c, Statements s, Claim claim, FencedSql sql, Binder binder)
      throws SQLException {
    String text = sql.returning() != null ? sql.returning() : sql.plain();
    try (PreparedStatement ps = c.prepareStatement(text)) {
      int i = binder.bind(ps);
      ps.setString(i, claim.consumer());
      ps.setString(i + 1, claim.messageId());
      ps.setInt(i + 2, claim.fencingToken());
      if (sql.returning() != null) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return s.readRecord(rs);
          }
        }
      } else if (ps.executeUpdate() == 1) {
        return select(c, s, claim.consumer(), claim.messageId());
      }
    }
    throw RecordStateMachine.refusal(claim, select(c, s, claim.consumer(), claim.messageId()));
  }

  public record Snapshot(InboxRecord record, Instant now) {}

  private Snapshot selectWithNow(Connection c, Statements s, String consumer, String messageId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(s.selectWithNow)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new Snapshot(s.readRecord(rs), s.dialect.getInstant(rs, "db_now"))
            : null;
      }
    }
  }

  public InboxRecord select(Connection c, Statements s, String consumer, String messageId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(s.select)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? s.readRecord(rs) : null;
      }
    }
  }

  /** The database clock read on {@code c}, so a caller holding a connection needs no other. */
  public Instant currentTimeOn(Connection c, Statements s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(s.now);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return s.dialect.getInstant(rs, "db_now");
    }
  }

  /**
   * The fenced extension on {@code c}. The statements come from that same connection: asking the
   * pool for another while the caller holds this one could wait on an exhausted pool.
   */
  public Claim extendOn(Connection c, Statements s, Claim claim, Duration lease)
      throws SQLException {
    return fenced(
            c,
            s,
            claim,
            s.extend,
            ps -> {
              ps.setLong(1, micros(lease));
              return 2;
            })
        .toClaim();
  }

  /** Reads many records of one consumer with the database's time, keyed by message id. */
  public Map<String, Snapshot> selectManyWithNow(
      Connection c, Statements s, List<BeginRequest> requests) throws SQLException {
    List<String> ids = new ArrayList<>(requests.size());
    for (BeginRequest r : requests) {
      ids.add(r.messageId());
    }
    Map<String, Snapshot> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(s.selectManyWithNow(ids.size()))) {
      s.bindKeys(ps, 1, requests.get(0).consumer(), ids);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          InboxRecord r = s.readRecord(rs);
          out.put(r.messageId(), new Snapshot(r, s.dialect.getInstant(rs, "db_now")));
        }
      }
    }
    return out;
  }

  public static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  /** The fenced failure on {@code c}: the record waits {@code retryDelay} for its next attempt. */
  public InboxRecord failOn(
      Connection c, Statements s, Claim claim, String error, Duration retryDelay)
      throws SQLException {
    return fenced(
        c,
        s,
        claim,
        s.fail,
        ps -> {
          ps.setLong(1, micros(retryDelay));
          ps.setString(2, InboxRecord.boundError(error));
          return 3;
        });
  }

  /** The fenced move to DEAD on {@code c}. */
  public InboxRecord markDeadOn(Connection c, Statements s, Claim claim, String error)
      throws SQLException {
    return fenced(
        c,
        s,
        claim,
        s.markDead,
        ps -> {
          ps.setString(1, InboxRecord.boundError(error));
          return 2;
        });
  }

  /**
   * Up to {@code limit} records in {@code state} (of {@code consumer}, or all if null), oldest
   * first.
   */
  public List<InboxRecord> listOn(
      Connection c, Statements s, RecordState state, String consumer, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(consumer == null ? s.listAll : s.listConsumer)) {
      int i = 1;
      ps.setString(i++, state.name());
      if (consumer != null) {
        ps.setString(i++, consumer);
      }
      ps.setInt(i, limit);
      List<InboxRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(s.readRecord(rs));
        }
      }
      return List.copyOf(out);
    }
  }
}
