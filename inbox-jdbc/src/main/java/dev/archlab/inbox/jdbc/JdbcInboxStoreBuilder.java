package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.schema.InboxSchema;
import dev.archlab.inbox.jdbc.schema.SchemaBusyException;
import dev.archlab.inbox.store.BeginRequest;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Builds a {@link JdbcInboxStore}. Every setting has the default its method documents; {@link
 * #build()} validates them all and never connects to the database. A builder is not thread-safe;
 * the stores it builds are.
 */
public final class JdbcInboxStoreBuilder {
  final DataSource dataSource;
  TableName table = TableName.of("inbox");
  JdbcDialect dialect;
  int pruneBatchSize = 10_000;
  int transientRetries = 3;
  Duration schemaLockTimeout = Duration.ofMillis(200);
  Duration schemaCreationTimeout = Duration.ofSeconds(30);
  boolean coalescing;

  JdbcInboxStoreBuilder(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * The table name; default {@code inbox}.
   *
   * @throws InvalidConfigurationException if it is not a plain SQL identifier
   */
  public JdbcInboxStoreBuilder table(String table) {
    this.table = TableName.of(table);
    return this;
  }

  /**
   * The dialect. When not set it is detected from the database's metadata on the first call that
   * needs the database (not by {@link #build()}, which never connects, so an application may build
   * its store before the database is up); until detection succeeds every call tries again and fails
   * with {@link StoreUnavailableException} saying what went wrong.
   */
  public JdbcInboxStoreBuilder dialect(JdbcDialect dialect) {
    this.dialect = dialect;
    return this;
  }

  /** Rows deleted per prune statement (each its own short transaction); default 10 000. */
  public JdbcInboxStoreBuilder pruneBatchSize(int pruneBatchSize) {
    this.pruneBatchSize = pruneBatchSize;
    return this;
  }

  /** Retries of a statement that hit a serialization failure or deadlock; default 3. */
  public JdbcInboxStoreBuilder transientRetries(int transientRetries) {
    this.transientRetries = transientRetries;
    return this;
  }

  /**
   * How long one DDL statement of {@link JdbcInboxStore#createSchemaIfMissing()} may wait for a
   * lock on the table before it gives up and is tried again; default 200 ms, between 1 ms and 1
   * minute. Every writer of the table may queue behind a waiting DDL statement for this long. MySQL
   * and MariaDB count whole seconds (MariaDB: rounded down, so below 1 s means no wait; MySQL:
   * rounded up).
   */
  public JdbcInboxStoreBuilder schemaLockTimeout(Duration schemaLockTimeout) {
    this.schemaLockTimeout = schemaLockTimeout;
    return this;
  }

  /**
   * How long {@link JdbcInboxStore#createSchemaIfMissing()} keeps trying DDL that other
   * transactions keep waiting before it throws {@link SchemaBusyException}; default 30 s, at least
   * {@code schemaLockTimeout}, at most 1 hour. A schema that is already there costs one catalog
   * read and is never delayed.
   */
  public JdbcInboxStoreBuilder schemaCreationTimeout(Duration schemaCreationTimeout) {
    this.schemaCreationTimeout = schemaCreationTimeout;
    return this;
  }

  /**
   * Whether concurrent {@link JdbcInboxStore#begin(BeginRequest)} calls are sent together as one
   * batch claim, and concurrent {@link JdbcInboxStore#complete(Claim, byte[])} calls without a
   * result as one fenced batch completion (one statement and one commit for all); default off.
   *
   * <p>There is no timer: a call that finds no flush running is sent at once, alone, and calls
   * arriving while a flush runs are sent together as the next one, so a lone thread pays nothing
   * but an uncontended lock, and many threads share round trips. Each caller gets exactly what its
   * own call would have answered (its own {@link PayloadMismatchException}, {@link
   * LeaseLostException} or {@link UnknownClaimException}; two callers with one id in one flush: one
   * claims, the other is IN_FLIGHT); a failed flush throws to every caller it had not yet answered.
   * Calls on a caller's connection, {@code fail}, {@code markDead}, {@code extend} and completions
   * keeping a result are never coalesced. A coalesced flush holds one connection, so coalescing
   * also lowers how many connections concurrent consumers need at once. On H2 and MySQL, which have
   * no multi-row claim, coalesced begins are claimed one by one on one connection: correct, but
   * without the saving.
   */
  public JdbcInboxStoreBuilder coalescing(boolean coalescing) {
    this.coalescing = coalescing;
    return this;
  }

  /**
   * Builds the store. Never connects to the database: see {@link #dialect(JdbcDialect)} for when
   * the dialect is detected.
   *
   * @throws InvalidConfigurationException naming the first bad setting
   */
  public JdbcInboxStore build() {
    InboxSchema.checkTimeouts(schemaLockTimeout, schemaCreationTimeout);
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
