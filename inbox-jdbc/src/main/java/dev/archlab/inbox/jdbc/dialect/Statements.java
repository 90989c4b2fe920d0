package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.store.BeginRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;

/**
 * Every statement on one inbox table for one database: the catalogue the store runs, built once per
 * store from its dialect and its validated table name (see {@link JdbcDialect#statements}). This
 * class holds the default SQL; a dialect whose database needs another form of a statement returns a
 * subclass that overrides that statement's {@code protected …Sql} method (or a batch operation) and
 * nothing else.
 *
 * <p>The SQL fields are built in the constructor by the {@code …Sql} methods, so an override must
 * build its text only from {@link #table}, {@link #dialect} and constants, never from fields of its
 * own (they are not set yet). Every value is a bind parameter; the table name is the only text that
 * comes from configuration. Instances are immutable and thread-safe.
 */
public class Statements {

  /** The inbox table's columns, in the order every SELECT and RETURNING lists them. */
  public static final String COLUMNS =
      "consumer, message_id, state, attempts, lease_until, created_at, updated_at, last_error,"
          + " payload_hash, result";

  /** The columns an insert of a new record sets; the others start NULL. */
  protected static final String INSERT_COLUMNS =
      " (consumer, message_id, state, attempts, lease_until, created_at, updated_at,"
          + " payload_hash)";

  private static final String KEY = " WHERE consumer = ? AND message_id = ?";

  /**
   * "Still PROCESSING" for a row found by its key, written so no planner can seek it through the
   * (state, updated_at) index: PostgreSQL, planning while the table has no statistics (new or just
   * truncated), did, and then walked every PROCESSING row per statement (DESIGN §7).
   */
  public static final String STILL_PROCESSING = " AND (state = 'PROCESSING') IS TRUE";

  /**
   * "Already DONE" for a row found by its key, written as {@link #STILL_PROCESSING} for the same
   * reason.
   */
  private static final String ALREADY_DONE = " AND (state = 'DONE') IS TRUE";

  private static final String FENCE = KEY + " AND attempts = ?" + STILL_PROCESSING;

  /** A fenced UPDATE, plain and (where the database can) returning the updated row, else null. */
  public record FencedSql(String plain, String returning) {}

  /** The dialect whose clock expressions and time types these statements use. */
  public final JdbcDialect dialect;

  /** The validated table name, as it appears in the SQL. */
  public final String table;

  /**
   * Claim: insert a new PROCESSING record unless the key exists. Parameters: consumer, message id,
   * lease in microseconds, payload hash. Returns the row if {@link #insertReturnsRecord()}.
   */
  public final String insert;

  /** The one-commit claim: insert the key DONE unless it exists. Parameters as {@link #insert}. */
  public final String insertDone;

  /** Stores a result on a DONE record. Parameters: result, consumer, message id. */
  public final String keepResult;

  /** Reads one record. Parameters: consumer, message id. */
  public final String select;

  /** Reads one record and the database time as {@code db_now}. Parameters as {@link #select}. */
  public final String selectWithNow;

  /**
   * Takes over (or kills) a PROCESSING record whose lease ended, conditioned on what was read.
   * Parameters: state, lease_until, updated_at, last_error, new attempts, consumer, message id,
   * attempts read, now.
   */
  public final String takeover;

  /** Fenced DONE. Parameters: result, then consumer, message id, token. */
  public final FencedSql complete;

  /** Fenced failure. Parameters: retry delay in microseconds, error, then the fence. */
  public final FencedSql fail;

  /** Fenced DEAD. Parameters: error, then the fence. */
  public final FencedSql markDead;

  /** Fenced lease extension. Parameters: lease in microseconds, then the fence. */
  public final FencedSql extend;

  /** Deletes one batch of old DONE records. Parameters: before, batch size. */
  public final String pruneAll;

  /** Deletes one batch of one consumer's old DONE records. Parameters: before, consumer, size. */
  public final String pruneConsumer;

  /** Lists records in a state, oldest first. Parameters: state, limit. */
  public final String listAll;

  /** Lists one consumer's records in a state, oldest first. Parameters: state, consumer, limit. */
  public final String listConsumer;

  /** Reads the database time as {@code db_now}. */
  public final String now;

  /** Per-consumer counts. Parameters: now (expired leases), retention cut-off. */
  public final String stats;

  /** Ends a live lease now. Parameters: consumer, message id. */
  public final String release;

  /** Deletes every DEAD record of a consumer. Parameter: consumer. */
  public final String retryDeadAll;

  /** Deletes one DEAD record. Parameters: consumer, message id. */
  public final String retryDeadOne;

  /** Deletes a first claim (attempt 1) whose handler never ran. Parameters: consumer, id. */
  public final String unclaimFirst;

  /** Counts old DONE records. Parameter: before. */
  public final String countPrunableAll;

  /** Counts one consumer's old DONE records. Parameters: before, consumer. */
  public final String countPrunableConsumer;

  /**
   * Counts a consumer's records per state among ids with a prefix ({@code !} escapes the LIKE
   * wildcards). Parameters: consumer, LIKE pattern.
   */
  public final String countByState;

  /** {@link #countByState} for ids that also sort below a bound. Parameters: as it, then bound. */
  public final String countByStateBelow;

  /** A read that fails if the table or a key column is missing. Parameters: consumer, id. */
  public final String probe;

  /** The name of the table's (state, updated_at) index, as the shipped DDL names it. */
  public final String indexName;

  /** Creates that index. */
  public final String createIndex;

  /** Builds every statement for {@code table} in {@code dialect}. */
  protected Statements(JdbcDialect dialect, TableName table) {
    this.dialect = dialect;
    this.table = table.value();
    this.indexName = table.baseName() + "_state_updated_idx";
    insert = insertSql("'PROCESSING', 1, " + dialect.nowPlusMicros());
    insertDone = insertSql("'DONE', 1, NULL");
    keepResult = keepResultSql();
    select = selectSql();
    selectWithNow = selectWithNowSql();
    takeover = takeoverSql();
    complete = fenced(completeSql());
    fail = fenced(failSql());
    markDead = fenced(markDeadSql());
    extend = fenced(extendSql());
    pruneAll = pruneSql(false);
    pruneConsumer = pruneSql(true);
    listAll = listSql(false);
    listConsumer = listSql(true);
    now = nowSql();
    stats = statsSql();
    release = releaseSql();
    retryDeadAll = retryDeadSql(false);
    retryDeadOne = retryDeadSql(true);
    unclaimFirst = "DELETE FROM " + table + KEY + " AND attempts = 1" + STILL_PROCESSING;
    countPrunableAll = countPrunableSql(false);
    countPrunableConsumer = countPrunableSql(true);
    countByState = countByStateSql(false);
    countByStateBelow = countByStateSql(true);
    probe = probeSql();
    createIndex = createIndexSql();
  }

  private FencedSql fenced(String update) {
    return new FencedSql(update, returningSql(update));
  }

  // ---- the statements, one method each: override the ones your database writes differently ----

  /**
   * An insert of a new record with {@code stateAttemptsLease} as the SQL of its state, attempts and
   * lease_until values, that does nothing if the key exists. This default is a plain {@code
   * INSERT}, whose unique violation the store reads as "taken": right only where a failed statement
   * leaves the transaction usable (H2). Parameters: consumer, message id, those of {@code
   * stateAttemptsLease}, payload hash.
   */
  protected String insertSql(String stateAttemptsLease) {
    return "INSERT INTO " + table + INSERT_COLUMNS + valuesSql(stateAttemptsLease);
  }

  /** The VALUES row of {@link #insertSql}: both times are the database's now. */
  protected final String valuesSql(String stateAttemptsLease) {
    return " VALUES (?, ?, "
        + stateAttemptsLease
        + ", "
        + dialect.now()
        + ", "
        + dialect.now()
        + ", ?)";
  }

  /** Whether {@link #insert} returns the inserted row's {@link #COLUMNS} in one round trip. */
  public boolean insertReturnsRecord() {
    return false;
  }

  /**
   * {@code update} (a single-row UPDATE) made to return the row's {@link #COLUMNS}, or null if the
   * database cannot, in which case the store reads the row afterwards. This default: null.
   */
  protected String returningSql(String update) {
    return null;
  }

  /** A clause that limits a statement to a bound number of rows, placed at its end. */
  protected String limitSql() {
    return "FETCH FIRST ? ROWS ONLY";
  }

  protected String keepResultSql() {
    return "UPDATE " + table + " SET result = ?" + KEY + ALREADY_DONE;
  }

  protected String selectSql() {
    return "SELECT " + COLUMNS + " FROM " + table + KEY;
  }

  protected String selectWithNowSql() {
    return "SELECT " + COLUMNS + ", " + dialect.now() + " AS db_now FROM " + table + KEY;
  }

  /** Assigns attempts last: MySQL evaluates SET clauses left to right. */
  protected String takeoverSql() {
    return "UPDATE "
        + table
        + " SET state = ?, lease_until = ?, updated_at = ?, last_error = ?, attempts = ?"
        + KEY
        + STILL_PROCESSING
        + " AND attempts = ? AND lease_until <= ?";
  }

  protected String completeSql() {
    return "UPDATE "
        + table
        + " SET state = 'DONE', lease_until = NULL, updated_at = "
        + dialect.now()
        + ", result = ?"
        + FENCE;
  }

  protected String failSql() {
    return "UPDATE "
        + table
        + " SET lease_until = "
        + dialect.nowPlusMicros()
        + ", updated_at = "
        + dialect.now()
        + ", last_error = ?"
        + FENCE;
  }

  protected String markDeadSql() {
    return "UPDATE "
        + table
        + " SET state = 'DEAD', lease_until = NULL, updated_at = "
        + dialect.now()
        + ", last_error = ?"
        + FENCE;
  }

  protected String extendSql() {
    return "UPDATE "
        + table
        + " SET lease_until = "
        + dialect.nowPlusMicros()
        + ", updated_at = "
        + dialect.now()
        + FENCE;
  }

  /** One batch of the prune, bounded by {@link #limitSql()}. */
  protected String pruneSql(boolean perConsumer) {
    return "DELETE FROM "
        + table
        + " WHERE state = 'DONE' AND updated_at < ?"
        + (perConsumer ? " AND consumer = ?" : "")
        + " "
        + limitSql();
  }

  protected String listSql(boolean perConsumer) {
    return "SELECT "
        + COLUMNS
        + " FROM "
        + table
        + " WHERE state = ?"
        + (perConsumer ? " AND consumer = ?" : "")
        + " ORDER BY created_at, consumer, message_id "
        + limitSql();
  }

  protected String nowSql() {
    return "SELECT " + dialect.now() + " AS db_now";
  }

  protected String statsSql() {
    return "SELECT consumer,"
        + " SUM(CASE WHEN state = 'PROCESSING' THEN 1 ELSE 0 END) AS processing,"
        + " SUM(CASE WHEN state = 'DONE' THEN 1 ELSE 0 END) AS done,"
        + " SUM(CASE WHEN state = 'DEAD' THEN 1 ELSE 0 END) AS dead,"
        + " SUM(CASE WHEN state = 'PROCESSING' AND lease_until <= ? THEN 1 ELSE 0 END)"
        + " AS expired,"
        + " MIN(CASE WHEN state = 'PROCESSING' THEN created_at END) AS oldest,"
        + " SUM(CASE WHEN state = 'DONE' AND updated_at < ? THEN 1 ELSE 0 END) AS past"
        + " FROM "
        + table
        + " GROUP BY consumer ORDER BY consumer";
  }

  protected String releaseSql() {
    return "UPDATE "
        + table
        + " SET lease_until = "
        + dialect.now()
        + ", updated_at = "
        + dialect.now()
        + KEY
        + STILL_PROCESSING;
  }

  protected String retryDeadSql(boolean oneId) {
    return "DELETE FROM "
        + table
        + " WHERE consumer = ? AND state = 'DEAD'"
        + (oneId ? " AND message_id = ?" : "");
  }

  protected String countPrunableSql(boolean perConsumer) {
    return "SELECT COUNT(*) FROM "
        + table
        + " WHERE state = 'DONE' AND updated_at < ?"
        + (perConsumer ? " AND consumer = ?" : "");
  }

  protected String countByStateSql(boolean below) {
    return "SELECT state, COUNT(*) AS n FROM "
        + table
        + " WHERE consumer = ? AND message_id LIKE ? ESCAPE '!'"
        + (below ? " AND message_id < ?" : "")
        + " GROUP BY state";
  }

  protected String probeSql() {
    return "SELECT COUNT(*) FROM " + table + KEY;
  }

  protected String createIndexSql() {
    return "CREATE INDEX " + indexName + " ON " + table + " (state, updated_at)";
  }

  // ---- reading rows ----------------------------------------------------------------------------

  /** Reads the current row of a result set holding {@link #COLUMNS} as a record. */
  public final InboxRecord readRecord(ResultSet rs) throws SQLException {
    String hash = rs.getString("payload_hash");
    return new InboxRecord(
        rs.getString("consumer"),
        rs.getString("message_id"),
        RecordState.valueOf(rs.getString("state")),
        rs.getInt("attempts"),
        dialect.getInstant(rs, "lease_until"),
        dialect.getInstant(rs, "created_at"),
        dialect.getInstant(rs, "updated_at"),
        rs.getString("last_error"),
        hash == null ? null : hash.strip(),
        rs.getBytes("result"));
  }

  // ---- batches: built per call, since their text depends on the batch size ---------------------

  /** Whether {@link #batchInsertIfAbsent} is available; otherwise ids are claimed one by one. */
  public boolean supportsBatchInsert() {
    return false;
  }

  /**
   * Inserts in one statement a record for each request (one consumer) whose key is absent, and
   * returns those: PROCESSING under its lease, or ({@code done}) DONE with no lease. {@code prefix}
   * (a lock timeout, or empty) goes in front. Only if {@link #supportsBatchInsert()}.
   */
  public List<InboxRecord> batchInsertIfAbsent(
      Connection c, List<BeginRequest> requests, boolean done, String prefix) throws SQLException {
    throw new UnsupportedOperationException(dialect.name() + " has no batch insert");
  }

  /** Reads many keys of one consumer with the database's time as {@code db_now}. */
  public String selectManyWithNow(int count) {
    return "SELECT "
        + COLUMNS
        + ", "
        + dialect.now()
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
   * Whether {@link #batchComplete} is one atomic statement that may run in autocommit (one round
   * trip, no BEGIN/COMMIT). This default: false, it locks the rows first.
   */
  public boolean batchCompleteIsOneStatement() {
    return false;
  }

  /**
   * Marks DONE every claim (one consumer, distinct ids) that is still current, inside the caller's
   * transaction, and returns the DONE records. Claims no longer current are left alone and not
   * returned. This default locks the rows, decides, then updates exactly the current ones.
   */
  public List<InboxRecord> batchComplete(Connection c, List<Claim> claims) throws SQLException {
    return LockingBatchComplete.complete(this, c, claims);
  }

  /** {@code count} copies of {@code each}, comma-separated. */
  protected static String placeholders(int count, String each) {
    return String.join(", ", Collections.nCopies(count, each));
  }
}
