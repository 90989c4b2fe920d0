package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.jdbc.coalescing.CoalescedCalls;
import dev.archlab.inbox.jdbc.coalescing.CoalescingStats;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.internal.InboxBatches;
import dev.archlab.inbox.jdbc.internal.InboxTable;
import dev.archlab.inbox.jdbc.internal.JdbcRunner;
import dev.archlab.inbox.jdbc.internal.StoreParts;
import dev.archlab.inbox.jdbc.schema.InboxSchema;
import dev.archlab.inbox.jdbc.schema.SchemaBusyException;
import dev.archlab.inbox.jdbc.schema.SchemaMissingException;
import dev.archlab.inbox.store.BatchClaims;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The production store: one row per {@code (consumer, message_id)} under a primary key, in
 * PostgreSQL, MySQL/MariaDB, SQLite or H2, reached through any {@link DataSource} (no pool of its
 * own).
 *
 * <p>Guarantees beyond the {@link InboxStore} contract:
 *
 * <ul>
 *   <li>Leases, retry times and {@code updatedAt} are the database's clock, read in SQL; the JVM's
 *       clock is never used, so consumers on hosts with skewed clocks cannot steal live leases.
 *   <li>Every decision is made by one atomic statement: an insert that does nothing if the key
 *       exists, or an {@code UPDATE} conditioned on the state, attempts (fencing token) and lease
 *       that were read, whose row count tells whether it won. There is no check-then-act window.
 *   <li>A claim never raises an error inside the caller's transaction ({@code ON CONFLICT DO
 *       NOTHING} or its dialect's equivalent), so it can run inside a business transaction.
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
public final class JdbcInboxStore implements InboxStore, BatchClaims {

  private final DataSource dataSource;
  private final TableName table;
  // The consumers (another package) and TransactionalEffect work on their own connections with
  // the runner (errors, dialect), the table operations and the batch operations.
  final JdbcRunner jdbc;
  final InboxTable rows;
  final InboxBatches batches;
  private final StoreParts parts;

  static {
    StoreParts.registerAccess(store -> store.parts);
  }

  private final InboxAdmin admin;
  private final InboxSchema schema;
  // Null unless the builder turned coalescing on.
  private final CoalescedCalls coalesced;

  JdbcInboxStore(JdbcInboxStoreBuilder b) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.jdbc = new JdbcRunner(b.dataSource, b.table, b.transientRetries, b.dialect);
    this.rows = new InboxTable();
    this.batches = new InboxBatches(rows);
    this.parts = new StoreParts(jdbc, rows, batches);
    this.admin = new InboxAdmin(jdbc, rows, b.pruneBatchSize);
    this.schema = new InboxSchema(jdbc, b.schemaLockTimeout, b.schemaCreationTimeout);
    this.coalesced = b.coalescing ? new CoalescedCalls(jdbc, rows, batches) : null;
  }

  /** A builder for a store on {@code dataSource}. */
  public static JdbcInboxStoreBuilder builder(DataSource dataSource) {
    return new JdbcInboxStoreBuilder(dataSource);
  }

  public TableName table() {
    return table;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** The coalescing layer, or null when coalescing is off (for this package's tests). */
  CoalescedCalls coalesced() {
    return coalesced;
  }

  /**
   * How many claims and completions the coalescing layer has flushed so far, and in how many
   * flushes; empty when coalescing is off. Cheap (two counters per kind), for gauges and
   * benchmarks: the average flush size says how much sharing the load allows.
   */
  public Optional<CoalescingStats> coalescingStats() {
    return coalesced == null ? Optional.empty() : Optional.of(coalesced.stats());
  }

  /** The operator actions on this store's table: stats, release, retry-dead, prune. */
  public InboxAdmin admin() {
    return admin;
  }

  /** This store's table definition: its DDL, whether it exists, creating what is missing. */
  public InboxSchema schema() {
    return schema;
  }

  /**
   * The dialect in use: the configured one, or the one detected from the database on first use
   * (this call, if nothing reached the database before).
   *
   * @throws StoreUnavailableException if detection needs the database and it cannot be reached
   */
  public JdbcDialect dialect() {
    return jdbc.statements().dialect;
  }

  /** The DDL for this store's table in its dialect, with the configured table name. */
  public String schemaSql() {
    return schema.ddl();
  }

  /** The DDL shipped for {@code dialect}, rewritten for {@code table}. */
  public static String schemaSql(JdbcDialect dialect, TableName table) {
    return InboxSchema.ddl(dialect, table);
  }

  /**
   * Creates the table and its index if they do not exist, safe on every start and from several
   * processes at once while others write; see {@link InboxSchema#createIfMissing()}.
   *
   * @throws SchemaBusyException if DDL was needed but other transactions kept the table locked for
   *     the whole {@code schemaCreationTimeout}; nothing was changed
   * @throws SchemaMissingException if the schema qualifying the table name does not exist
   * @throws StoreUnavailableException if the database cannot be reached, refuses the login or does
   *     not exist
   */
  public void createSchemaIfMissing() {
    schema.createIfMissing();
  }

  /** Whether the inbox table exists and is readable. */
  public boolean schemaExists() {
    return schema.exists();
  }

  // ---- InboxStore
  // ------------------------------------------------------------------------------

  @Override
  public BeginResult begin(BeginRequest request) {
    Objects.requireNonNull(request, "request");
    if (coalesced != null) {
      return coalesced.begin(request);
    }
    return jdbc.run("begin", true, (c, s) -> rows.beginOn(c, s, request));
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    ArgumentChecks.requireResultSize(result);
    if (coalesced != null && result == null) {
      // The batch completion keeps no result, so only plain completions are coalesced.
      return coalesced.complete(Objects.requireNonNull(claim, "claim"));
    }
    return jdbc.run("complete", true, (c, s) -> rows.completeOn(c, s, claim, result));
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    Objects.requireNonNull(claim, "claim");
    ArgumentChecks.requireNonNegative(retryDelay, "retryDelay");
    return jdbc.run("fail", true, (c, s) -> rows.failOn(c, s, claim, error, retryDelay));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    Objects.requireNonNull(claim, "claim");
    return jdbc.run("mark dead", true, (c, s) -> rows.markDeadOn(c, s, claim, error));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    Objects.requireNonNull(claim, "claim");
    ArgumentChecks.requirePositive(lease, "lease");
    return jdbc.run("extend", true, (c, s) -> rows.extendOn(c, s, claim, lease));
  }

  @Override
  public long prune(Instant before) {
    Objects.requireNonNull(before, "before");
    return admin.pruneWhere(null, before, total -> {});
  }

  @Override
  public long prune(String consumer, Instant before) {
    Identifiers.requireConsumerName(consumer);
    Objects.requireNonNull(before, "before");
    return admin.pruneWhere(consumer, before, total -> {});
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    return jdbc.run(
        "find", true, (c, s) -> Optional.ofNullable(rows.select(c, s, consumer, messageId)));
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    Objects.requireNonNull(state, "state");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer);
    }
    ArgumentChecks.requireLimit(limit);
    return jdbc.run("list", true, (c, s) -> rows.listOn(c, s, state, consumer, limit));
  }

  @Override
  public Instant currentTime() {
    return jdbc.run("read the database clock", true, rows::currentTimeOn);
  }

  // ---- the same operations on a caller's connection -----------------------------------------

  /**
   * {@link #begin} on the caller's connection, inside whatever transaction it has open. Never
   * leaves that transaction aborted: a key that exists is not an error.
   */
  public BeginResult begin(Connection connection, BeginRequest request) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(request, "request");
    return jdbc.onCallerConnection("begin", connection, s -> rows.beginOn(connection, s, request));
  }

  /**
   * The fenced {@link #complete} on the caller's connection, inside the caller's transaction, which
   * the caller commits. If it throws {@link LeaseLostException}, the caller must roll back: another
   * instance owns the message and this instance's business writes must not commit.
   */
  public InboxRecord complete(Connection connection, Claim claim, byte[] result) {
    Objects.requireNonNull(connection, "connection");
    ArgumentChecks.requireResultSize(result);
    return jdbc.onCallerConnection(
        "complete", connection, s -> rows.completeOn(connection, s, claim, result));
  }

  /** The fenced {@link #extend} on the caller's connection, inside the caller's transaction. */
  public Claim extend(Connection connection, Claim claim, Duration lease) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(claim, "claim");
    ArgumentChecks.requirePositive(lease, "lease");
    return jdbc.onCallerConnection(
        "extend", connection, s -> rows.extendOn(connection, s, claim, lease));
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
   *
   * <p>With one writer at a time ({@link JdbcDialect#oneWriterAtATime()}, SQLite) the claim and a
   * failed attempt go into the caller's transaction too, with no heartbeat: commit after FAILED or
   * DEAD as well (docs/DESIGN.md, "The caller's transaction on a one-writer database").
   */
  public TransactionalEffect inCallerTransaction(
      ConnectionSupplier currentConnection, TransactionalHandler handler) {
    return new TransactionalEffect(this, handler, Objects.requireNonNull(currentConnection));
  }

  // ---- batches -----------------------------------------------------------------------------

  /**
   * {@inheritDoc} One multi-row insert per 500 ids on PostgreSQL, MariaDB and SQLite, in autocommit
   * (one round trip, one commit); one insert per id on one connection on H2 and MySQL.
   */
  @Override
  public List<BeginResult> claimNew(List<BeginRequest> requests) {
    InboxBatches.requireOneConsumer(requests);
    if (requests.isEmpty()) {
      return List.of();
    }
    List<InboxRecord> inserted =
        jdbc.run("claim new", true, (c, s) -> batches.claimNewOn(c, s, requests));
    Map<String, InboxRecord> byId = new HashMap<>();
    for (InboxRecord r : inserted) {
      byId.put(r.messageId(), r);
    }
    List<BeginResult> out = new ArrayList<>(inserted.size());
    for (BeginRequest r : requests) {
      InboxRecord record = byId.get(r.messageId());
      if (record != null) {
        out.add(BeginResult.of(BeginResult.Kind.CLAIMED, record, record.createdAt()));
      }
    }
    return List.copyOf(out);
  }

  /** {@inheritDoc} One JDBC batch of fenced deletes. */
  @Override
  public void unclaimFirst(List<Claim> claims) {
    if (claims.isEmpty()) {
      return;
    }
    jdbc.run(
        "unclaim",
        true,
        (c, s) -> {
          batches.unclaimFirstOn(c, s, claims);
          return null;
        });
  }

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
    if (InboxBatches.requireOneConsumer(requests).isEmpty()) {
      return List.of();
    }
    return jdbc.run("begin batch", true, (c, s) -> batches.beginBatchOn(c, s, requests));
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
    return jdbc.run("complete batch", true, (c, s) -> batches.completeBatchCommitted(c, s, claims));
  }

  /** {@link #completeBatch(List)} inside the caller's transaction, which the caller commits. */
  public List<BatchCompletion> completeBatch(Connection connection, List<Claim> claims) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(claims, "claims");
    return jdbc.onCallerConnection(
        "complete batch", connection, s -> batches.completeBatchOn(connection, s, claims));
  }
}
