package dev.archlab.inbox.outbox;

import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import java.util.Collections;

/**
 * Every statement on one outbox table in one database, built once from constants, the dialect's
 * clock expressions and the validated table name; every value is a bind parameter. This class is
 * the standard SQL (H2's); a database that writes a statement differently has a subclass beside it
 * that overrides just that statement ({@link PostgresOutboxStatements}, {@link
 * MySqlOutboxStatements}, {@link SqliteOutboxStatements}). Immutable.
 *
 * <p>Statements that find rows by seq or id write their state test as {@code (state = …) IS TRUE},
 * which no planner can seek through an index: on a table without statistics (new, or just
 * truncated) PostgreSQL otherwise reaches rows by seq through an index that starts with the state,
 * walking every row in that state.
 */
class OutboxStatements {

  /** The columns a relay reads of a row, in {@link OutboxRow}'s order. */
  static final String ROW_COLUMNS =
      "seq, message_id, destination, message_key, payload, headers, attempts";

  final JdbcDialect dialect;
  final TableName table;
  final String insert;
  final String anyDue;
  final String window;
  final String markRetry;
  final String markDead;
  final String prune;
  final String countByState;
  final String oldestPending;
  final String list;
  final String retryDead;
  final String leaseClaim;
  final String leaseSent;
  final String leaseRetry;
  final String leaseDead;

  OutboxStatements(JdbcDialect dialect, TableName table) {
    this.dialect = dialect;
    this.table = table;
    String now = dialect.now();
    this.insert = insertSql(now);
    // The cheap test first: is any row due at all? (due_idx; a relay whose every row is in
    // backoff then reads nothing more.)
    this.anyDue =
        "SELECT seq FROM "
            + table
            + " WHERE state = 'PENDING' AND next_attempt_at <= "
            + now
            + limit();
    // The unsent rows after a bound seq, in seq order, whether due or not. ClaimPlan finds each
    // key's head and its due successors among them. Ordered as order_idx is (state and sent_at are
    // fixed here, so it is seq order): only that index hands them over unsorted, and a planner
    // without statistics cannot walk the primary key past every SENT row instead.
    this.window =
        "SELECT seq, destination, message_key, CASE WHEN next_attempt_at <= "
            + now
            + " THEN 1 ELSE 0 END AS due FROM "
            + table
            + " WHERE state = 'PENDING' AND sent_at IS NULL AND seq > ?"
            + " ORDER BY state, sent_at, seq"
            + limit();
    this.markRetry =
        "UPDATE "
            + table
            + " SET attempts = attempts + 1, next_attempt_at = "
            + dialect.nowPlusMicros()
            + ", last_error = ? WHERE seq = ? AND (state = 'PENDING') IS TRUE";
    this.markDead =
        "UPDATE "
            + table
            + " SET state = 'DEAD', attempts = attempts + 1, last_error = ?"
            + " WHERE seq = ? AND (state = 'PENDING') IS TRUE";
    this.prune = pruneSql(dialect.nowPlusMicros());
    this.countByState = "SELECT state, COUNT(*) AS n FROM " + table + " GROUP BY state";
    this.oldestPending =
        "SELECT MIN(created_at) AS oldest, "
            + now
            + " AS db_now FROM "
            + table
            + " WHERE state = 'PENDING'";
    this.list =
        "SELECT "
            + ROW_COLUMNS
            + ", state, last_error, created_at, sent_at FROM "
            + table
            + " WHERE state = ? ORDER BY seq"
            + limit();
    // Lease mode (no SKIP LOCKED): a claim moves the row's due time past the lease and counts the
    // attempt, only if the row is still due (no other relay took it); the attempt count it wrote is
    // then the claim's fencing token for the marks that follow.
    this.leaseClaim =
        "UPDATE "
            + table
            + " SET attempts = attempts + 1, next_attempt_at = "
            + dialect.nowPlusMicros()
            + " WHERE seq = ? AND (state = 'PENDING') IS TRUE AND next_attempt_at <= "
            + now;
    this.leaseSent =
        "UPDATE "
            + table
            + " SET state = 'SENT', sent_at = "
            + now
            + ", last_error = NULL WHERE seq = ? AND attempts = ? AND (state = 'PENDING') IS TRUE";
    this.leaseRetry =
        "UPDATE "
            + table
            + " SET next_attempt_at = "
            + dialect.nowPlusMicros()
            + ", last_error = ? WHERE seq = ? AND attempts = ? AND (state = 'PENDING') IS TRUE";
    this.leaseDead =
        "UPDATE "
            + table
            + " SET state = 'DEAD', last_error = ? WHERE seq = ? AND attempts = ? AND (state = 'PENDING') IS TRUE";
    this.retryDead =
        "UPDATE "
            + table
            + " SET state = 'PENDING', next_attempt_at = "
            + now
            + " WHERE message_id = ? AND (state = 'DEAD') IS TRUE";
  }

  /**
   * The statement for {@code dialect} and {@code table}: the subclass of a database that writes
   * some statement differently, else the standard one.
   */
  static OutboxStatements of(JdbcDialect dialect, TableName table) {
    switch (dialect.name()) {
      case "postgresql":
        return new PostgresOutboxStatements(dialect, table);
      case "mariadb":
      case "mysql":
        return new MySqlOutboxStatements(dialect, table);
      case "sqlite":
        return new SqliteOutboxStatements(dialect, table);
      default:
        return new OutboxStatements(dialect, table);
    }
  }

  /**
   * Inserts a PENDING row (id, destination, key, payload, headers), due now on the database clock.
   * This standard form raises a unique violation for an id already in the table, which leaves the
   * transaction usable on the databases that use it ({@link #insertSkipsDuplicates()} is false).
   */
  protected String insertSql(String now) {
    return "INSERT INTO " + table + insertTail(now);
  }

  /** The column list and values of {@link #insertSql}, after the table name. */
  protected final String insertTail(String now) {
    return " (message_id, destination, message_key, payload, headers, state, attempts,"
        + " next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 'PENDING', 0, "
        + now
        + ", "
        + now
        + ")";
  }

  /** Whether {@link #insert} skips an id already present (else it raises a unique violation). */
  boolean insertSkipsDuplicates() {
    return false;
  }

  /**
   * A statement run in a claim's transaction before the window is read, or null for none: how a
   * database is told to read the unsent rows in index order rather than sort them.
   */
  String beforeClaim() {
    return null;
  }

  /** A bound row limit. */
  protected String limit() {
    return " LIMIT ?";
  }

  /**
   * The clause that locks the rows a relay reads, or empty if this database has no row locks the
   * relay can claim with (then {@link #claimsWithSkipLocked()} is false).
   */
  protected String lockClause() {
    return "";
  }

  /** The clause that locks the rows read and skips those another transaction holds. */
  protected String skipLockedClause() {
    return "";
  }

  /**
   * Whether a relay claims rows on this database with {@code FOR UPDATE SKIP LOCKED} ({@link
   * RelayClaims}); if not, with leases ({@link LeaseClaims}).
   */
  boolean claimsWithSkipLocked() {
    return !skipLockedClause().isEmpty();
  }

  /**
   * Locks up to a bound number of the rows of {@code count} head candidates (bound seqs, then the
   * limit) that are still PENDING and due, skipping any another relay holds.
   */
  String lockHeads(int count) {
    return "SELECT "
        + ROW_COLUMNS
        + " FROM "
        + table
        + " WHERE seq IN ("
        + marks(count)
        + ") AND (state = 'PENDING') IS TRUE AND next_attempt_at <= "
        + dialect.now()
        + " ORDER BY seq"
        + limit()
        + skipLockedClause();
  }

  /**
   * Reads the rows of {@code count} bound seqs that are still PENDING, in seq order, locking them
   * where the database locks rows ({@link #lockClause()}): a claimed head's successors.
   */
  String rowsIn(int count) {
    return "SELECT "
        + ROW_COLUMNS
        + " FROM "
        + table
        + " WHERE seq IN ("
        + marks(count)
        + ") AND (state = 'PENDING') IS TRUE ORDER BY seq"
        + lockClause();
  }

  /** Marks the PENDING rows of {@code count} bound seqs SENT at the database's time. */
  String markSent(int count) {
    return "UPDATE "
        + table
        + " SET state = 'SENT', attempts = attempts + 1, sent_at = "
        + dialect.now()
        + ", last_error = NULL WHERE seq IN ("
        + marks(count)
        + ") AND (state = 'PENDING') IS TRUE";
  }

  private static String marks(int count) {
    return String.join(", ", Collections.nCopies(count, "?"));
  }

  /**
   * Deletes up to a bound number of SENT rows sent before now plus a bound (negative) number of
   * microseconds. Parameters: the microseconds, then the limit.
   */
  protected String pruneSql(String nowPlusMicros) {
    return "DELETE FROM "
        + table
        + " WHERE seq IN (SELECT seq FROM "
        + table
        + " WHERE state = 'SENT' AND sent_at < "
        + nowPlusMicros
        + limit()
        + ")";
  }
}
