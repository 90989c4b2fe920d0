package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.internal.Identifiers;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The production store: one row per {@code (consumer, message_id)} under a primary key, in
 * PostgreSQL, MySQL/MariaDB or H2, reached through any {@link DataSource} (this class keeps no pool
 * of its own).
 *
 * <p>Guarantees beyond the {@link InboxStore} contract:
 *
 * <ul>
 *   <li>Leases, retry times and {@code updatedAt} are the database's clock, read in SQL; the JVM's
 *       clock is never used, so consumers on hosts with skewed clocks cannot steal live leases.
 *   <li>Every decision is made by one atomic statement: an insert that does nothing if the key
 *       exists, or an {@code UPDATE} conditioned on the state, attempts (fencing token) and lease
 *       that were read, whose row count tells whether it won. There is no check-then-act window.
 *   <li>A claim never raises an error inside the caller's transaction (PostgreSQL uses {@code ON
 *       CONFLICT DO NOTHING}), so it can run inside a business transaction.
 *   <li>Serialization failures and deadlocks of statements the store runs on its own connections
 *       are retried up to {@code transientRetries} times; every other SQL error becomes an {@link
 *       InboxException} subclass ({@link StoreUnavailableException} for lost connections, refused
 *       logins and a database that does not exist) with the SQLState in its message.
 *   <li>Building a store never connects; the dialect is detected by the first call that needs the
 *       database. {@link #createSchemaIfMissing()} sends no DDL for a schema that is there, and
 *       never keeps other writers of the table waiting for longer than one lock timeout.
 * </ul>
 *
 * <p>For exactly-once effects in the same database, run the handler through {@link
 * #transactional(TransactionalHandler)} (DONE and the business write commit together) or use {@link
 * OneCommitConsumer} (claim, business write and DONE in one commit).
 */
public final class JdbcInboxStore implements InboxStore {

  private static final System.Logger LOG = System.getLogger(JdbcInboxStore.class.getName());

  /** Most ids per batch statement; longer batches are cut into chunks of this size. */
  static final int MAX_BATCH = 500;

  /** Classifies errors that happen before a dialect could be detected. */
  private static final JdbcDialect GENERIC = new dev.archlab.inbox.jdbc.dialect.H2Dialect();

  /** Classifies MariaDB/MySQL driver errors (vendor codes) before a dialect could be detected. */
  private static final JdbcDialect MYSQL_RULES =
      new dev.archlab.inbox.jdbc.dialect.MySqlDialect(true);

  private final DataSource dataSource;
  private final TableName table;
  private final int pruneBatchSize;
  private final int transientRetries;
  private final JdbcDialect configuredDialect;
  private final Duration schemaLockTimeout;
  private final Duration schemaCreationTimeout;
  private volatile Statements statements;

  private JdbcInboxStore(Builder b) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.pruneBatchSize = b.pruneBatchSize;
    this.transientRetries = b.transientRetries;
    this.configuredDialect = b.dialect;
    this.schemaLockTimeout = b.schemaLockTimeout;
    this.schemaCreationTimeout = b.schemaCreationTimeout;
  }

  /** A builder for a store on {@code dataSource}. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  public TableName table() {
    return table;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** The dialect given to the builder, or null if it is detected on first use. */
  JdbcDialect configuredDialect() {
    return configuredDialect;
  }

  /**
   * The dialect in use: the configured one, or the one detected from the database on first use
   * (this call, if nothing reached the database before).
   *
   * @throws StoreUnavailableException if detection needs the database and it cannot be reached
   */
  public JdbcDialect dialect() {
    return statements().dialect;
  }

  // ---- schema ----------------------------------------------------------------------------------

  /** The DDL for this store's table in its dialect, with the configured table name. */
  public String schemaSql() {
    return schemaSql(dialect(), table);
  }

  /** The DDL shipped for {@code dialect}, rewritten for {@code table}. */
  public static String schemaSql(JdbcDialect dialect, TableName table) {
    String resource = dialect.schemaResource();
    try (InputStream in = JdbcInboxStore.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing from the jar: " + resource);
      }
      String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      // Index and constraint names take the bare table name; table references the full one.
      return ddl.replaceAll("\\binbox_", table.baseName() + "_")
          .replaceAll("\\binbox\\b", table.value());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Creates the table and its index if they do not exist; safe to call on every start and from
   * several processes at once, also while other instances are writing to the table.
   *
   * <p>The catalog is read first, without locking the table: when the table and its index are
   * there, which is every start but the first, no DDL is sent at all, so a start never waits for
   * (or makes anyone wait behind) transactions open on the table. Only what is missing is created.
   * Each DDL statement gives up on a lock after {@code schemaLockTimeout} (so writers queue behind
   * it at most that long) and is tried again with backoff until {@code schemaCreationTimeout}. The
   * schema (MySQL/MariaDB: database) of a qualified table name is never created.
   *
   * @throws SchemaBusyException if DDL was needed but other transactions kept the table locked for
   *     the whole {@code schemaCreationTimeout}; nothing was changed
   * @throws SchemaMissingException if the schema qualifying the table name does not exist
   * @throws StoreUnavailableException if the database cannot be reached, refuses the login or does
   *     not exist
   */
  public void createSchemaIfMissing() {
    new SchemaInstaller(this, schemaLockTimeout, schemaCreationTimeout).createIfMissing();
  }

  /** Whether the inbox table exists and is readable. */
  public boolean schemaExists() {
    try {
      run(
          "check schema",
          true,
          c -> {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT COUNT(*) FROM " + table + " WHERE consumer = ? AND message_id = ?")) {
              ps.setString(1, "-");
              ps.setString(2, "-");
              ps.executeQuery().close();
            }
            return null;
          });
      return true;
    } catch (SchemaMissingException e) {
      return false;
    }
  }

  static List<String> splitStatements(String ddl) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : ddl.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.startsWith("--") || trimmed.isEmpty()) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        String sql = current.toString().strip();
        out.add(sql.substring(0, sql.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      out.add(current.toString().strip());
    }
    return out;
  }

  // ---- InboxStore
  // --------------------------------------------------------------------------------

  @Override
  public BeginResult begin(BeginRequest request) {
    Objects.requireNonNull(request, "request");
    return run("begin", true, c -> beginOn(c, request));
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    checkResult(result);
    return run("complete", true, c -> completeOn(c, claim, result));
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    Objects.requireNonNull(claim, "claim");
    requireNonNegative(retryDelay, "retryDelay");
    Statements s = statements();
    return run(
        "fail",
        true,
        c ->
            fenced(
                c,
                claim,
                s.fail,
                ps -> {
                  ps.setLong(1, micros(retryDelay));
                  ps.setString(2, InboxRecord.boundError(error));
                  return 3;
                }));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    Objects.requireNonNull(claim, "claim");
    Statements s = statements();
    return run(
        "mark dead",
        true,
        c ->
            fenced(
                c,
                claim,
                s.markDead,
                ps -> {
                  ps.setString(1, InboxRecord.boundError(error));
                  return 2;
                }));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    requireLease(claim, lease);
    return run("extend", true, c -> extendOn(c, claim, lease));
  }

  @Override
  public long prune(Instant before) {
    Objects.requireNonNull(before, "before");
    return pruneWhere(null, before, total -> {});
  }

  @Override
  public long prune(String consumer, Instant before) {
    Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    Objects.requireNonNull(before, "before");
    return pruneWhere(consumer, before, total -> {});
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    Identifiers.requireMessageId(messageId, Message.MAX_ID_LENGTH);
    return run("find", true, c -> Optional.ofNullable(select(c, consumer, messageId)));
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    Objects.requireNonNull(state, "state");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    }
    if (limit < 0) {
      throw new InvalidArgumentException("limit must be >= 0, was " + limit);
    }
    Statements s = statements();
    return run(
        "list",
        true,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(consumer == null ? s.listAll : s.listConsumer)) {
            int i = 1;
            ps.setString(i++, state.name());
            if (consumer != null) {
              ps.setString(i++, consumer);
            }
            ps.setInt(i, limit);
            List<InboxRecord> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(readRecord(rs));
              }
            }
            return List.copyOf(out);
          }
        });
  }

  @Override
  public Instant currentTime() {
    return run("read the database clock", true, this::currentTimeOn);
  }

  /** The database clock read on {@code c}, so a caller holding a connection needs no other. */
  Instant currentTimeOn(Connection c) throws SQLException {
    Statements s = statements(c);
    try (PreparedStatement ps = c.prepareStatement(s.now);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return s.dialect.getInstant(rs, "db_now");
    }
  }

  // ---- operator actions ------------------------------------------------------------------------

  /**
   * Counts per consumer: records by state, expired leases, the age of the oldest PROCESSING record
   * and DONE records older than {@code retention}, all measured by the database clock.
   */
  public List<ConsumerStats> stats(Duration retention) {
    Objects.requireNonNull(retention, "retention");
    return run(
        "status",
        true,
        c -> {
          Statements s = statements(c);
          Instant now;
          try (PreparedStatement ps = c.prepareStatement(s.now);
              ResultSet rs = ps.executeQuery()) {
            rs.next();
            now = s.dialect.getInstant(rs, "db_now");
          }
          String sql =
              "SELECT consumer,"
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
          List<ConsumerStats> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            s.dialect.setInstant(ps, 1, now);
            s.dialect.setInstant(ps, 2, now.minus(retention));
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                Instant oldest = s.dialect.getInstant(rs, "oldest");
                out.add(
                    new ConsumerStats(
                        rs.getString("consumer"),
                        rs.getLong("processing"),
                        rs.getLong("done"),
                        rs.getLong("dead"),
                        rs.getLong("expired"),
                        oldest == null ? Duration.ZERO : Duration.between(oldest, now),
                        rs.getLong("past")));
              }
            }
          }
          return List.copyOf(out);
        });
  }

  /**
   * Ends a live lease now, so another instance may take the message over at its next delivery. For
   * an owner known to be gone (a hung host); a live owner will be fenced out.
   *
   * @return the record after the release; empty if there is no PROCESSING record for the key
   */
  public Optional<InboxRecord> release(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    Identifiers.requireMessageId(messageId, Message.MAX_ID_LENGTH);
    return run(
        "release",
        true,
        c -> {
          Statements s = statements(c);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + table
                      + " SET lease_until = "
                      + s.dialect.now()
                      + ", updated_at = "
                      + s.dialect.now()
                      + " WHERE consumer = ? AND message_id = ? AND state = 'PROCESSING'")) {
            ps.setString(1, consumer);
            ps.setString(2, messageId);
            if (ps.executeUpdate() == 0) {
              return Optional.empty();
            }
          }
          return Optional.ofNullable(select(c, consumer, messageId));
        });
  }

  /**
   * Forgets DEAD records so their next delivery starts afresh at attempt 1 with the full retry
   * budget (for after the cause was fixed). Only DEAD records are touched. Like pruning, this
   * restarts the fencing tokens of those messages: use it only when no instance still works on
   * them.
   *
   * @param messageIds the ids to retry; empty for every DEAD record of the consumer
   * @return how many DEAD records were released for retry
   */
  public long retryDead(String consumer, List<String> messageIds) {
    Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    Objects.requireNonNull(messageIds, "messageIds");
    for (String id : messageIds) {
      Identifiers.requireMessageId(id, Message.MAX_ID_LENGTH);
    }
    return run(
        "retry dead",
        true,
        c -> {
          String base = "DELETE FROM " + table + " WHERE consumer = ? AND state = 'DEAD'";
          if (messageIds.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(base)) {
              ps.setString(1, consumer);
              return (long) ps.executeUpdate();
            }
          }
          long total = 0;
          try (PreparedStatement ps = c.prepareStatement(base + " AND message_id = ?")) {
            for (String id : messageIds) {
              ps.setString(1, consumer);
              ps.setString(2, id);
              total += ps.executeUpdate();
            }
          }
          return total;
        });
  }

  /**
   * How many DONE records {@link #prune(String, Instant)} would delete now (consumer may be null).
   */
  public long countPrunable(String consumer, Instant before) {
    Objects.requireNonNull(before, "before");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    }
    return run(
        "count prunable",
        true,
        c -> {
          Statements s = statements(c);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT COUNT(*) FROM "
                      + table
                      + " WHERE state = 'DONE' AND updated_at < ?"
                      + (consumer == null ? "" : " AND consumer = ?"))) {
            s.dialect.setInstant(ps, 1, before);
            if (consumer != null) {
              ps.setString(2, consumer);
            }
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  /**
   * {@link #prune(String, Instant)} (all consumers when {@code consumer} is null) that reports the
   * running total after every batch, for progress displays.
   */
  public long prune(String consumer, Instant before, java.util.function.LongConsumer progress) {
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(progress, "progress");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    }
    return pruneWhere(consumer, before, progress);
  }

  // ---- the same operations on a caller's connection -----------------------------------------

  /**
   * {@link #begin} on the caller's connection, inside whatever transaction it has open. Never
   * leaves that transaction aborted: a key that exists is not an error.
   */
  public BeginResult begin(Connection connection, BeginRequest request) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(request, "request");
    return onCallerConnection("begin", connection, () -> beginOn(connection, request));
  }

  /**
   * The fenced {@link #complete} on the caller's connection, inside the caller's transaction, which
   * the caller commits. If it throws {@link LeaseLostException}, the caller must roll back: another
   * instance owns the message and this instance's business writes must not commit.
   */
  public InboxRecord complete(Connection connection, Claim claim, byte[] result) {
    Objects.requireNonNull(connection, "connection");
    checkResult(result);
    return onCallerConnection("complete", connection, () -> completeOn(connection, claim, result));
  }

  /** The fenced {@link #extend} on the caller's connection, inside the caller's transaction. */
  public Claim extend(Connection connection, Claim claim, Duration lease) {
    Objects.requireNonNull(connection, "connection");
    requireLease(claim, lease);
    return onCallerConnection("extend", connection, () -> extendOn(connection, claim, lease));
  }

  /**
   * The fenced extension on {@code c}. The statements come from that same connection: asking the
   * pool for another while the caller holds this one could wait on an exhausted pool.
   */
  private Claim extendOn(Connection c, Claim claim, Duration lease) throws SQLException {
    return fenced(
            c,
            claim,
            statements(c).extend,
            ps -> {
              ps.setLong(1, micros(lease));
              return 2;
            })
        .toClaim();
  }

  private static void requireLease(Claim claim, Duration lease) {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative() || lease.isZero()) {
      throw new InvalidArgumentException("lease must be positive, was " + lease);
    }
  }

  /**
   * Runs {@code handler} and the fenced completion in one transaction on a connection of its own:
   * the business writes the handler makes through the connection commit together with DONE, or not
   * at all. Pass the result to {@link IdempotentConsumer.Builder#effect}.
   */
  public TransactionalEffect transactional(TransactionalHandler handler) {
    return new TransactionalEffect(this, handler, null);
  }

  /**
   * Like {@link #transactional(TransactionalHandler)}, but on the connection of a transaction the
   * caller manages (e.g. one a framework opened): the store neither commits nor rolls back. If
   * {@link IdempotentConsumer#consume} throws, the caller must roll back.
   */
  public TransactionalEffect inCallerTransaction(
      ConnectionSupplier currentConnection, TransactionalHandler handler) {
    return new TransactionalEffect(this, handler, Objects.requireNonNull(currentConnection));
  }

  // ---- statements ----------------------------------------------------------------------------

  BeginResult beginOn(Connection c, BeginRequest r) throws SQLException {
    return beginOn(c, r, true);
  }

  /**
   * Begins on {@code c}; with {@code insertFirst} false the caller has just found the key taken
   * (the one-commit mode's DONE insert), so the first round starts by reading it.
   */
  BeginResult beginOn(Connection c, BeginRequest r, boolean insertFirst) throws SQLException {
    for (int round = 0; round < 100; round++) {
      InboxRecord inserted = round == 0 && !insertFirst ? null : tryInsert(c, r);
      if (inserted != null) {
        return BeginResult.of(Kind.CLAIMED, inserted, inserted.createdAt());
      }
      Snapshot snap = selectWithNow(c, r.consumer(), r.messageId());
      if (snap == null) {
        continue; // pruned between the insert and the read: insert again
      }
      BeginResult decided = decide(c, r, snap);
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
  private BeginResult decide(Connection c, BeginRequest r, Snapshot snap) throws SQLException {
    InboxRecord cur = snap.record;
    Instant now = snap.now;
    if (r.payloadHash() != null
        && cur.payloadHash() != null
        && !r.payloadHash().equals(cur.payloadHash())) {
      throw new PayloadMismatchException(r.consumer(), r.messageId());
    }
    if (cur.state() == RecordState.DONE) {
      return BeginResult.of(Kind.DUPLICATE, cur, now);
    }
    if (cur.state() == RecordState.DEAD) {
      return BeginResult.of(Kind.DEAD, cur, now);
    }
    if (now.isBefore(cur.leaseUntil())) {
      return BeginResult.of(Kind.IN_FLIGHT, cur, now);
    }
    boolean dies = cur.attempts() >= r.maxAttempts();
    InboxRecord next =
        dies
            ? cur.transitioned(
                RecordState.DEAD,
                cur.attempts(),
                null,
                now,
                cur.lastError() != null
                    ? cur.lastError()
                    : "lease expired without completion after "
                        + cur.attempts()
                        + " attempt(s); the handler probably crashed the process")
            // A PROCESSING row keeps an error only while it waits for the retry of a recorded
            // failure; the new attempt starts without one, so its own crash reads as a takeover.
            : cur.transitioned(
                RecordState.PROCESSING, cur.attempts() + 1, now.plus(r.lease()), now, null);
    Statements s = statements(c);
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
      return ps.executeUpdate() == 1
          ? BeginResult.of(
              dies ? Kind.DIED : cur.lastError() != null ? Kind.RETRIED : Kind.TAKEN_OVER,
              next,
              now)
          : null;
    }
  }

  // ---- batches -----------------------------------------------------------------------------

  /**
   * Begins many messages of one consumer at once: new ids are claimed with one multi-row insert and
   * the rest are read with one query, so a batch of new messages costs one round trip on PostgreSQL
   * and MariaDB. On H2 and MySQL, which cannot say which rows of a multi-row insert were added
   * without a race, the ids are claimed one by one on one connection (the same answers, at least
   * one round trip per id). Each result is what {@link #begin} would have answered for that request
   * at that moment; an id repeated within the batch is IN_FLIGHT (or what its first occurrence got,
   * if that did not claim it). Results are in request order.
   *
   * @throws InvalidArgumentException if the requests name more than one consumer
   * @throws PayloadMismatchException if any request's payload hash differs from its record's
   */
  public List<BeginResult> beginBatch(List<BeginRequest> requests) {
    Objects.requireNonNull(requests, "requests");
    if (requests.isEmpty()) {
      return List.of();
    }
    String consumer = requests.get(0).consumer();
    for (BeginRequest r : requests) {
      if (!r.consumer().equals(consumer)) {
        throw new InvalidArgumentException(
            "a batch holds one consumer's messages; got '"
                + consumer
                + "' and '"
                + r.consumer()
                + "'");
      }
    }
    return run("begin batch", true, c -> beginBatchOn(c, requests));
  }

  List<BeginResult> beginBatchOn(Connection c, List<BeginRequest> requests) throws SQLException {
    Statements s = statements(c);
    Map<String, BeginRequest> firsts = new LinkedHashMap<>();
    for (BeginRequest r : requests) {
      firsts.putIfAbsent(r.messageId(), r);
    }
    Map<String, BeginResult> decided = new HashMap<>();
    List<BeginRequest> distinct = new ArrayList<>(firsts.values());
    for (int from = 0; from < distinct.size(); from += MAX_BATCH) {
      List<BeginRequest> chunk =
          distinct.subList(from, Math.min(distinct.size(), from + MAX_BATCH));
      if (!s.dialect.supportsBatchInsert()) {
        for (BeginRequest r : chunk) {
          decided.put(r.messageId(), beginOn(c, r));
        }
        continue;
      }
      for (InboxRecord inserted :
          s.dialect.batchInsertIfAbsent(c, table.value(), chunk, this::readRecord)) {
        decided.put(
            inserted.messageId(), BeginResult.of(Kind.CLAIMED, inserted, inserted.createdAt()));
      }
      List<BeginRequest> existing = new ArrayList<>();
      for (BeginRequest r : chunk) {
        if (!decided.containsKey(r.messageId())) {
          existing.add(r);
        }
      }
      if (existing.isEmpty()) {
        continue;
      }
      Map<String, Snapshot> snaps = selectManyWithNow(c, existing);
      for (BeginRequest r : existing) {
        Snapshot snap = snaps.get(r.messageId());
        BeginResult result = snap == null ? null : decide(c, r, snap);
        // Pruned or raced since the insert: settle this one the single-message way.
        decided.put(r.messageId(), result != null ? result : beginOn(c, r));
      }
    }
    List<BeginResult> out = new ArrayList<>(requests.size());
    Set<String> seen = new HashSet<>();
    for (BeginRequest r : requests) {
      BeginResult first = decided.get(r.messageId());
      if (seen.add(r.messageId()) || !first.claimed()) {
        out.add(first);
      } else {
        // A repeat of an id this batch just claimed: the same answer a second delivery gets.
        out.add(BeginResult.of(Kind.IN_FLIGHT, first.record(), first.storeTime()));
      }
    }
    return List.copyOf(out);
  }

  /** How one fenced completion of a batch ended: the DONE record, or why it was refused. */
  public record BatchCompletion(Claim claim, InboxRecord record, InboxException error) {
    public boolean succeeded() {
      return error == null;
    }
  }

  /**
   * Completes many claims of one consumer in one short transaction, with one fenced statement for
   * the whole batch. Each result is what {@link #complete} would have done for that claim: the DONE
   * record, or a {@link LeaseLostException} / {@link UnknownClaimException} for claims no longer
   * current (those records are unchanged). Results are in claim order.
   */
  public List<BatchCompletion> completeBatch(List<Claim> claims) {
    Objects.requireNonNull(claims, "claims");
    return run(
        "complete batch",
        true,
        c -> {
          try (LocalTransaction tx = new LocalTransaction(c)) {
            List<BatchCompletion> done = completeBatchOn(c, claims);
            tx.commit();
            return done;
          }
        });
  }

  /** {@link #completeBatch(List)} inside the caller's transaction, which the caller commits. */
  public List<BatchCompletion> completeBatch(Connection connection, List<Claim> claims) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(claims, "claims");
    return onCallerConnection(
        "complete batch", connection, () -> completeBatchOn(connection, claims));
  }

  List<BatchCompletion> completeBatchOn(Connection c, List<Claim> claims) throws SQLException {
    if (claims.isEmpty()) {
      return List.of();
    }
    String consumer = claims.get(0).consumer();
    Map<String, Claim> byId = new LinkedHashMap<>();
    for (Claim claim : claims) {
      if (!claim.consumer().equals(consumer)) {
        throw new InvalidArgumentException(
            "a batch holds one consumer's claims; got '"
                + consumer
                + "' and '"
                + claim.consumer()
                + "'");
      }
      if (byId.putIfAbsent(claim.messageId(), claim) != null) {
        throw new InvalidArgumentException(
            "claim for message '" + claim.messageId() + "' appears twice in one batch");
      }
    }
    Statements s = statements(c);
    Map<String, InboxRecord> completed = new HashMap<>();
    List<Claim> distinct = new ArrayList<>(byId.values());
    for (int from = 0; from < distinct.size(); from += MAX_BATCH) {
      List<Claim> chunk = distinct.subList(from, Math.min(distinct.size(), from + MAX_BATCH));
      for (InboxRecord done : s.dialect.batchComplete(c, table.value(), chunk, this::readRecord)) {
        completed.put(done.messageId(), done);
      }
    }
    List<BatchCompletion> out = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      InboxRecord done = completed.get(claim.messageId());
      if (done != null) {
        out.add(new BatchCompletion(claim, done, null));
        continue;
      }
      InboxRecord current = select(c, claim.consumer(), claim.messageId());
      InboxException refusal;
      if (current == null) {
        refusal = new UnknownClaimException(claim, "no record exists for this key");
      } else if (claim.fencingToken() > current.attempts()) {
        refusal =
            new UnknownClaimException(
                claim, "the record has only reached attempt " + current.attempts());
      } else {
        refusal = new LeaseLostException(claim, current.state(), current.attempts());
      }
      out.add(new BatchCompletion(claim, null, refusal));
    }
    return List.copyOf(out);
  }

  /** Reads many records of one consumer with the database's time, keyed by message id. */
  Map<String, Snapshot> selectManyWithNow(Connection c, List<BeginRequest> requests)
      throws SQLException {
    JdbcDialect d = statements(c).dialect;
    List<String> ids = new ArrayList<>(requests.size());
    for (BeginRequest r : requests) {
      ids.add(r.messageId());
    }
    Map<String, Snapshot> out = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(d.selectManyWithNow(table.value(), ids.size()))) {
      d.bindKeys(ps, 1, requests.get(0).consumer(), ids);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          InboxRecord r = readRecord(rs);
          out.put(r.messageId(), new Snapshot(r, d.getInstant(rs, "db_now")));
        }
      }
    }
    return out;
  }

  private InboxRecord tryInsert(Connection c, BeginRequest r) throws SQLException {
    Statements s = statements(c);
    try (PreparedStatement ps = c.prepareStatement(s.insert)) {
      ps.setString(1, r.consumer());
      ps.setString(2, r.messageId());
      ps.setLong(3, micros(r.lease()));
      ps.setString(4, r.payloadHash());
      return insertedRecord(c, ps, r);
    }
  }

  /**
   * Inserts {@code r}'s key as DONE (attempts 1, no lease) on {@code c} if it is absent, and
   * returns the new record, or null if the key exists. Meant for an open transaction whose commit
   * also carries the effect; until then the row lock keeps concurrent duplicates waiting.
   */
  InboxRecord insertDoneOn(Connection c, BeginRequest r) throws SQLException {
    return insertDoneOn(c, r, "");
  }

  /**
   * {@link #insertDoneOn(Connection, BeginRequest)} with {@code prefix} (a dialect's per-statement
   * lock timeout, or empty) in front of the insert.
   */
  InboxRecord insertDoneOn(Connection c, BeginRequest r, String prefix) throws SQLException {
    Statements s = statements(c);
    String sql = prefix.isEmpty() ? s.insertDone : prefix + s.insertDone;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, r.consumer());
      ps.setString(2, r.messageId());
      ps.setString(3, r.payloadHash());
      return insertedRecord(c, ps, r);
    }
  }

  /** Stores {@code result} on a DONE record written by this transaction; returns the record. */
  InboxRecord keepResultOn(Connection c, InboxRecord done, byte[] result) throws SQLException {
    checkResult(result);
    try (PreparedStatement ps = c.prepareStatement(statements(c).keepResult)) {
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
  private InboxRecord insertedRecord(Connection c, PreparedStatement ps, BeginRequest r)
      throws SQLException {
    JdbcDialect d = statements(c).dialect;
    if (d.insertReturnsRecord()) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? readRecord(rs) : null;
      }
    }
    int inserted;
    try {
      inserted = ps.executeUpdate();
    } catch (SQLException e) {
      if (d.classify(e) == SqlErrorKind.UNIQUE_VIOLATION) {
        return null; // only H2 gets here; it rolls back just this statement
      }
      throw e;
    }
    return inserted == 1 ? select(c, r.consumer(), r.messageId()) : null;
  }

  InboxRecord completeOn(Connection c, Claim claim, byte[] result) throws SQLException {
    Objects.requireNonNull(claim, "claim");
    return fenced(
        c,
        claim,
        statements(c).complete,
        ps -> {
          ps.setBytes(1, result);
          return 2;
        });
  }

  /** Binds the statement-specific parameters and returns the index of the first key parameter. */
  @FunctionalInterface
  interface Binder {
    int bind(PreparedStatement ps) throws SQLException;
  }

  /**
   * Runs a fenced UPDATE ({@code … WHERE consumer = ? AND message_id = ? AND attempts = ? AND state
   * = 'PROCESSING'}) and returns the updated row, or explains why no row matched.
   */
  private InboxRecord fenced(Connection c, Claim claim, FencedSql sql, Binder binder)
      throws SQLException {
    Statements s = statements(c);
    String text = sql.returning != null ? sql.returning : sql.plain;
    try (PreparedStatement ps = c.prepareStatement(text)) {
      int i = binder.bind(ps);
      ps.setString(i, claim.consumer());
      ps.setString(i + 1, claim.messageId());
      ps.setInt(i + 2, claim.fencingToken());
      if (sql.returning != null) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return readRecord(rs);
          }
        }
      } else if (ps.executeUpdate() == 1) {
        return select(c, claim.consumer(), claim.messageId());
      }
    }
    InboxRecord current = select(c, claim.consumer(), claim.messageId());
    if (current == null) {
      throw new UnknownClaimException(claim, "no record exists for this key");
    }
    if (claim.fencingToken() > current.attempts()) {
      throw new UnknownClaimException(
          claim, "the record has only reached attempt " + current.attempts());
    }
    throw new LeaseLostException(claim, current.state(), current.attempts());
  }

  record Snapshot(InboxRecord record, Instant now) {}

  private Snapshot selectWithNow(Connection c, String consumer, String messageId)
      throws SQLException {
    Statements s = statements(c);
    try (PreparedStatement ps = c.prepareStatement(s.selectWithNow)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Snapshot(readRecord(rs), s.dialect.getInstant(rs, "db_now")) : null;
      }
    }
  }

  InboxRecord select(Connection c, String consumer, String messageId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statements(c).select)) {
      ps.setString(1, consumer);
      ps.setString(2, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? readRecord(rs) : null;
      }
    }
  }

  private long pruneWhere(
      String consumer, Instant before, java.util.function.LongConsumer progress) {
    Statements s = statements();
    String sql = consumer == null ? s.pruneAll : s.pruneConsumer;
    long total = 0;
    while (true) {
      // One short autocommit statement per batch: row locks are held for one batch only.
      int deleted =
          run(
              "prune",
              true,
              c -> {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                  int i = 1;
                  s.dialect.setInstant(ps, i++, before);
                  if (consumer != null) {
                    ps.setString(i++, consumer);
                  }
                  ps.setInt(i, pruneBatchSize);
                  return ps.executeUpdate();
                }
              });
      total += deleted;
      progress.accept(total);
      if (deleted < pruneBatchSize) {
        return total;
      }
    }
  }

  InboxRecord readRecord(ResultSet rs) throws SQLException {
    JdbcDialect d = statements().dialect;
    return new InboxRecord(
        rs.getString("consumer"),
        rs.getString("message_id"),
        RecordState.valueOf(rs.getString("state")),
        rs.getInt("attempts"),
        d.getInstant(rs, "lease_until"),
        d.getInstant(rs, "created_at"),
        d.getInstant(rs, "updated_at"),
        rs.getString("last_error"),
        trimToNull(rs.getString("payload_hash")),
        rs.getBytes("result"));
  }

  private static String trimToNull(String s) {
    return s == null ? null : s.strip();
  }

  // ---- connections, errors, retries ------------------------------------------------------------

  /** Work on a connection. */
  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Work on a caller's connection, without a connection parameter. */
  @FunctionalInterface
  interface CallerWork<T> {
    T run() throws SQLException;
  }

  /**
   * Runs {@code work} on a pooled connection in autocommit mode, retrying transient failures when
   * {@code retryable}, and translating SQL errors into the project's exceptions.
   */
  <T> T run(String operation, boolean retryable, SqlWork<T> work) {
    int attempt = 0;
    while (true) {
      attempt++;
      try (Connection c = dataSource.getConnection()) {
        // Detect on this connection: asking the pool for a second one while holding this one
        // deadlocks a pool that every thread has exhausted the same way.
        statements(c);
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
          c.setAutoCommit(true);
        }
        try {
          return work.run(c);
        } finally {
          if (!autoCommit) {
            c.setAutoCommit(false);
          }
        }
      } catch (SQLException e) {
        SqlErrorKind kind = kindOf(e);
        if (retryable && kind == SqlErrorKind.SERIALIZATION && attempt <= transientRetries) {
          // Safe: the statement was rolled back. Logged, so retries are never silent.
          LOG.log(
              System.Logger.Level.WARNING,
              "inbox "
                  + operation
                  + " hit a transient failure (SQLState "
                  + e.getSQLState()
                  + "), retry "
                  + attempt
                  + " of "
                  + transientRetries
                  + ": "
                  + e.getMessage());
          sleepBeforeRetry(attempt);
          continue;
        }
        throw translate(operation, e, kind);
      }
    }
  }

  <T> T onCallerConnection(String operation, Connection c, CallerWork<T> work) {
    try {
      statements(c);
      return work.run();
    } catch (SQLException e) {
      throw translate(operation, e, kindOf(e));
    }
  }

  private SqlErrorKind kindOf(SQLException e) {
    Statements s = statements;
    JdbcDialect d = s != null ? s.dialect : configuredDialect;
    // Before the dialect is known (detection failed), the generic SQLState rules apply.
    JdbcDialect by = d != null ? d : detectedOrGeneric(e);
    SqlErrorKind kind = by.classify(e);
    // A pool that could not open a connection reports its own timeout and keeps the server's
    // answer as the cause (HikariCP keeps its SQLState but drops the vendor code): a refused
    // login or a missing database is said as such, not as "unreachable".
    if (kind == SqlErrorKind.CONNECTION || kind == SqlErrorKind.OTHER) {
      for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
        if (t instanceof SQLException cause) {
          SqlErrorKind inner = (d != null ? d : detectedOrGeneric(cause)).classify(cause);
          if (inner == SqlErrorKind.DATABASE_MISSING || inner == SqlErrorKind.ACCESS_DENIED) {
            return inner;
          }
        }
      }
    }
    return kind;
  }

  /**
   * Before any connection worked there is no dialect: an error from a MariaDB/MySQL driver (by its
   * class, or a server error code in MySQL's 1000-4999 range, which PostgreSQL's drivers never set
   * and H2 does not use) is read by the MySQL rules, anything else by the generic SQLState rules.
   */
  private static JdbcDialect detectedOrGeneric(SQLException e) {
    String type = e.getClass().getName();
    int code = e.getErrorCode();
    boolean mysql =
        type.startsWith("org.mariadb.")
            || type.startsWith("com.mysql.")
            || (code >= 1000 && code < 5000 && code != 2000);
    return mysql ? MYSQL_RULES : GENERIC;
  }

  /** Translates an SQL error into the project's exceptions, by the dialect if known yet. */
  InboxException translate(String operation, SQLException e) {
    return translate(operation, e, kindOf(e));
  }

  /** The dialect, detected on {@code c} (which the caller holds) if not known yet. */
  JdbcDialect dialect(Connection c) throws SQLException {
    return statements(c).dialect;
  }

  InboxException translate(String operation, SQLException e, SqlErrorKind kind) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String detail =
        e.getMessage()
            + (root != e && root.getMessage() != null ? " (cause: " + root.getMessage() + ")" : "")
            + " [SQLState "
            + e.getSQLState()
            + "]"
            + (statements == null && configuredDialect == null && kind != SqlErrorKind.OTHER
                ? " (first contact with the database: build() does not connect, the dialect is"
                    + " detected on first use)"
                : "");
    switch (kind) {
      case CONNECTION:
        return new StoreUnavailableException(
            "inbox " + operation + " failed: database unreachable: " + detail, e);
      case ACCESS_DENIED:
        return new StoreUnavailableException(
            "inbox " + operation + " failed: database refused the login: " + detail, e);
      case DATABASE_MISSING:
        return new StoreUnavailableException(
            "inbox "
                + operation
                + " failed: database does not exist (check the database name in the JDBC URL or"
                + " DataSource"
                + (table.schemaName() != null
                    ? ", and on MySQL/MariaDB the database '" + table.schemaName() + "'"
                    : "")
                + "): "
                + detail,
            e);
      case NAMESPACE_MISSING:
        return new SchemaMissingException(
            "inbox "
                + operation
                + " failed: the schema of table '"
                + table
                + "' does not exist; create it first (CREATE SCHEMA), or name a table in an"
                + " existing one ("
                + detail
                + ")",
            e);
      case SCHEMA_MISSING:
        return new SchemaMissingException(
            "inbox "
                + operation
                + " failed: table '"
                + table
                + "' does not exist or lacks columns; create it with createSchemaIfMissing() or"
                + " the shipped DDL ("
                + detail
                + ")",
            e);
      default:
        return new InboxException("inbox " + operation + " failed: " + detail, e);
    }
  }

  private static void sleepBeforeRetry(int attempt) {
    try {
      Thread.sleep(Math.min(200, 5L << attempt));
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InboxException("interrupted while retrying a transient database failure", ie);
    }
  }

  /** The statements, detecting the dialect on a connection of the pool's if needed. */
  private Statements statements() {
    Statements s = statements;
    if (s != null) {
      return s;
    }
    try (Connection c = configuredDialect != null ? null : dataSource.getConnection()) {
      return statements(c);
    } catch (SQLException e) {
      throw translate("dialect detection", e, kindOf(e));
    }
  }

  /** The statements, detecting the dialect on {@code c} (which the caller already holds). */
  Statements statements(Connection c) throws SQLException {
    Statements s = statements;
    if (s == null) {
      synchronized (this) {
        s = statements;
        if (s == null) {
          JdbcDialect dialect =
              configuredDialect != null ? configuredDialect : JdbcDialect.detect(c);
          s = new Statements(dialect, table);
          statements = s;
        }
      }
    }
    return s;
  }

  static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  private static void checkResult(byte[] result) {
    if (result != null && result.length > InboxRecord.MAX_RESULT_BYTES) {
      throw new InvalidArgumentException(
          "result of "
              + result.length
              + " bytes exceeds the limit of "
              + InboxRecord.MAX_RESULT_BYTES
              + " bytes");
    }
  }

  private static void requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new InvalidArgumentException(name + " must not be negative, was " + d);
    }
  }

  /** A fenced UPDATE, plain and (where the database can) returning the row. */
  record FencedSql(String plain, String returning) {}

  /** Every statement, built once from the dialect and the validated table name. */
  static final class Statements {
    final JdbcDialect dialect;
    final String insert;
    final String insertDone;
    final String keepResult;
    final String select;
    final String selectWithNow;
    final String takeover;
    final FencedSql complete;
    final FencedSql fail;
    final FencedSql markDead;
    final FencedSql extend;
    final String pruneAll;
    final String pruneConsumer;
    final String listAll;
    final String listConsumer;
    final String now;

    Statements(JdbcDialect d, TableName table) {
      this.dialect = d;
      String t = table.value();
      String key = " WHERE consumer = ? AND message_id = ?";
      String fence = key + " AND attempts = ? AND state = 'PROCESSING'";
      insert = d.insertIfAbsent(t);
      insertDone = d.insertDoneIfAbsent(t);
      keepResult = "UPDATE " + t + " SET result = ?" + key + " AND state = 'DONE'";
      select = "SELECT " + JdbcDialect.COLUMNS + " FROM " + t + key;
      selectWithNow =
          "SELECT " + JdbcDialect.COLUMNS + ", " + d.now() + " AS db_now FROM " + t + key;
      // attempts is assigned last: MySQL evaluates SET clauses left to right.
      takeover =
          "UPDATE "
              + t
              + " SET state = ?, lease_until = ?, updated_at = ?, last_error = ?, attempts = ?"
              + key
              + " AND state = 'PROCESSING' AND attempts = ? AND lease_until <= ?";
      complete =
          fencedSql(
              d,
              "UPDATE "
                  + t
                  + " SET state = 'DONE', lease_until = NULL, updated_at = "
                  + d.now()
                  + ", result = ?"
                  + fence);
      fail =
          fencedSql(
              d,
              "UPDATE "
                  + t
                  + " SET lease_until = "
                  + d.nowPlusMicros()
                  + ", updated_at = "
                  + d.now()
                  + ", last_error = ?"
                  + fence);
      markDead =
          fencedSql(
              d,
              "UPDATE "
                  + t
                  + " SET state = 'DEAD', lease_until = NULL, updated_at = "
                  + d.now()
                  + ", last_error = ?"
                  + fence);
      extend =
          fencedSql(
              d,
              "UPDATE "
                  + t
                  + " SET lease_until = "
                  + d.nowPlusMicros()
                  + ", updated_at = "
                  + d.now()
                  + fence);
      pruneAll = d.pruneBatch(t, false);
      pruneConsumer = d.pruneBatch(t, true);
      String list = "SELECT " + JdbcDialect.COLUMNS + " FROM " + t + " WHERE state = ?";
      String order = " ORDER BY created_at, consumer, message_id " + d.limit();
      listAll = list + order;
      listConsumer = list + " AND consumer = ?" + order;
      now = "SELECT " + d.now() + " AS db_now";
    }

    private static FencedSql fencedSql(JdbcDialect d, String update) {
      return new FencedSql(update, d.updateReturning(update));
    }
  }

  /** Builds a {@link JdbcInboxStore}. */
  public static final class Builder {
    private final DataSource dataSource;
    private TableName table = TableName.of("inbox");
    private JdbcDialect dialect;
    private int pruneBatchSize = 10_000;
    private int transientRetries = 3;
    private Duration schemaLockTimeout = Duration.ofMillis(200);
    private Duration schemaCreationTimeout = Duration.ofSeconds(30);

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * The table name; default {@code inbox}.
     *
     * @throws InvalidConfigurationException if it is not a plain SQL identifier
     */
    public Builder table(String table) {
      this.table = TableName.of(table);
      return this;
    }

    /**
     * The dialect. When not set it is detected from the database's metadata on the first call that
     * needs the database (not by {@link #build()}, which never connects, so an application may
     * build its store before the database is up); until detection succeeds every call tries again
     * and fails with {@link StoreUnavailableException} saying what went wrong.
     */
    public Builder dialect(JdbcDialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** Rows deleted per prune statement (each its own short transaction); default 10 000. */
    public Builder pruneBatchSize(int pruneBatchSize) {
      this.pruneBatchSize = pruneBatchSize;
      return this;
    }

    /** Retries of a statement that hit a serialization failure or deadlock; default 3. */
    public Builder transientRetries(int transientRetries) {
      this.transientRetries = transientRetries;
      return this;
    }

    /**
     * How long one DDL statement of {@link JdbcInboxStore#createSchemaIfMissing()} may wait for a
     * lock on the table before it gives up and is tried again; default 200 ms, between 1 ms and 1
     * minute. Every writer of the table may queue behind a waiting DDL statement for this long.
     * MySQL and MariaDB count whole seconds (MariaDB: rounded down, so below 1 s means no wait;
     * MySQL: rounded up).
     */
    public Builder schemaLockTimeout(Duration schemaLockTimeout) {
      this.schemaLockTimeout = schemaLockTimeout;
      return this;
    }

    /**
     * How long {@link JdbcInboxStore#createSchemaIfMissing()} keeps trying DDL that other
     * transactions keep waiting before it throws {@link SchemaBusyException}; default 30 s, at
     * least {@code schemaLockTimeout}, at most 1 hour. A schema that is already there costs one
     * catalog read and is never delayed.
     */
    public Builder schemaCreationTimeout(Duration schemaCreationTimeout) {
      this.schemaCreationTimeout = schemaCreationTimeout;
      return this;
    }

    /**
     * Builds the store. Never connects to the database: see {@link #dialect(JdbcDialect)} for when
     * the dialect is detected.
     *
     * @throws InvalidConfigurationException naming the first bad setting
     */
    public JdbcInboxStore build() {
      if (schemaLockTimeout == null
          || schemaLockTimeout.compareTo(Duration.ofMillis(1)) < 0
          || schemaLockTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new InvalidConfigurationException(
            "schemaLockTimeout must be between 1 ms and 1 minute, was " + schemaLockTimeout);
      }
      if (schemaCreationTimeout == null
          || schemaCreationTimeout.compareTo(schemaLockTimeout) < 0
          || schemaCreationTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new InvalidConfigurationException(
            "schemaCreationTimeout must be between schemaLockTimeout ("
                + schemaLockTimeout
                + ") and 1 hour, was "
                + schemaCreationTimeout);
      }
      if (pruneBatchSize < 1 || pruneBatchSize > 1_000_000) {
        throw new InvalidConfigurationException(
            "pruneBatchSize must be between 1 and 1000000, was " + pruneBatchSize);
      }
      if (transientRetries < 0 || transientRetries > 100) {
        throw new InvalidConfigurationException(
            "transientRetries must be between 0 and 100, was " + transientRetries);
      }
      return new JdbcInboxStore(this);
    }
  }
}
