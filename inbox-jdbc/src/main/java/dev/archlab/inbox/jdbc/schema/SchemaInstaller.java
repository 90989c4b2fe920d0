package dev.archlab.inbox.jdbc.schema;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.LockTimeoutPlan;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.jdbc.internal.JdbcRunner;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * Creates what is missing of one store's schema, and nothing else: the catalog is read first
 * (without locking the table), and only the missing table or index is created. Each DDL statement
 * runs with a short lock timeout, so it never waits in the table's lock queue (where every later
 * writer would wait behind it) for longer than that; a timed-out attempt is retried with backoff
 * until the creation timeout, then reported as a {@link SchemaBusyException}.
 */
final class SchemaInstaller {

  private static final System.Logger LOG = System.getLogger(JdbcInboxStore.class.getName());

  /**
   * How often a DDL failure that is neither a lock wait nor a known error kind is tried again while
   * the object is still missing. Concurrent DDL on H2 can fail inside the engine (a general error)
   * while another session's creation of the same object is not yet visible; a few checks later the
   * object is there. A failure that persists is reported as it is.
   */
  private static final int MAX_UNEXPLAINED_RETRIES = 3;

  /** What the catalog says is there. */
  private record Found(boolean table, boolean index) {}

  private final JdbcRunner jdbc;
  private final InboxSchema schema;
  private final TableName table;
  private final Duration lockTimeout;
  private final Duration creationTimeout;

  SchemaInstaller(
      JdbcRunner jdbc, InboxSchema schema, Duration lockTimeout, Duration creationTimeout) {
    this.jdbc = jdbc;
    this.schema = schema;
    this.table = jdbc.table();
    this.lockTimeout = lockTimeout;
    this.creationTimeout = creationTimeout;
  }

  /** The name of the index the shipped DDL creates; asked after {@link #inspect()} detected. */
  private String indexName() {
    return jdbc.statements().indexName;
  }

  void createIfMissing() {
    long deadline = System.nanoTime() + creationTimeout.toNanos();
    int lockTimeouts = 0;
    int unexplained = 0;
    while (true) {
      Found found = inspect();
      if (found.table() && found.index()) {
        return;
      }
      String what = found.table() ? "index " + indexName() : "table";
      String ddl = found.table() ? createIndexSql() : createTableSql();
      SQLException failure = tryDdl(ddl);
      if (failure == null) {
        continue; // check again: the next missing object, or done
      }
      SqlErrorKind kind = kindOf(failure);
      if (kind == SqlErrorKind.LOCK_TIMEOUT || kind == SqlErrorKind.SERIALIZATION) {
        lockTimeouts++;
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw busy(what, lockTimeouts, failure);
        }
        LOG.log(
            System.Logger.Level.INFO,
            "inbox schema: creating the "
                + what
                + " of table '"
                + table
                + "' waited "
                + lockTimeout.toMillis()
                + " ms for a lock that other transactions hold; trying again");
        pause(lockTimeouts, left);
        continue;
      }
      if (kind != SqlErrorKind.OTHER && kind != SqlErrorKind.UNIQUE_VIOLATION) {
        throw jdbc.translate("create schema", failure);
      }
      // Another process may have created the same object between the check and the DDL (its
      // catalog row then clashes with ours). Only if the object is there now is that harmless.
      Found after = inspect();
      boolean createdByOther = found.table() ? after.index() : after.table();
      if (!createdByOther) {
        unexplained++;
        long left = deadline - System.nanoTime();
        if (unexplained > MAX_UNEXPLAINED_RETRIES || left <= 0) {
          throw jdbc.translate("create schema", failure);
        }
        LOG.log(
            System.Logger.Level.INFO,
            "inbox schema: creating the "
                + what
                + " of table '"
                + table
                + "' failed while it is still missing ("
                + failure.getMessage()
                + "); checking the catalog again");
        pause(unexplained, left);
        continue;
      }
      LOG.log(
          System.Logger.Level.INFO,
          "inbox schema: another process created the " + what + " of table '" + table + "'");
    }
  }

  /** Reads the catalog on a pooled connection; refuses a schema qualifier that does not exist. */
  private Found inspect() {
    String namespace = table.schemaName();
    return jdbc.run(
        "check schema",
        false,
        (c, s) -> {
          JdbcDialect d = s.dialect;
          if (namespace != null && !d.namespaceExists(c, namespace)) {
            throw new SchemaMissingException(
                "inbox table '"
                    + table
                    + "': schema '"
                    + namespace
                    + "' does not exist (on MySQL and MariaDB: the database '"
                    + namespace
                    + "'); create it first (CREATE SCHEMA / CREATE DATABASE "
                    + namespace
                    + "), or name a table in an existing one",
                null);
          }
          boolean hasTable = d.tableExists(c, namespace, table.baseName());
          String index = s.indexName;
          boolean hasIndex = hasTable && d.indexExists(c, namespace, table.baseName(), index);
          return new Found(hasTable, hasIndex);
        });
  }

  /** The shipped table DDL (first statement of the shipped script) for this table. */
  private String createTableSql() {
    List<String> statements = InboxSchema.splitStatements(schema.ddl());
    return statements.get(0);
  }

  private String createIndexSql() {
    return jdbc.statements().createIndex;
  }

  /** Runs {@code ddl} with the dialect's lock timeout; returns its failure, or null. */
  private SQLException tryDdl(String ddl) {
    try (Connection c = jdbc.dataSource().getConnection()) {
      LockTimeoutPlan plan = jdbc.dialect(c).ddlLockTimeout(lockTimeout);
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        try {
          for (String sql : plan.before()) {
            st.execute(sql);
          }
          st.execute(plan.insertPrefix() + ddl);
          c.commit();
        } catch (SQLException e) {
          rollbackQuietly(c, e);
          return e;
        } finally {
          for (String sql : plan.after()) {
            st.execute(sql);
          }
        }
      } finally {
        c.setAutoCommit(autoCommit);
      }
      return null;
    } catch (SQLException e) {
      return e;
    }
  }

  private static void rollbackQuietly(Connection c, SQLException cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private SqlErrorKind kindOf(SQLException e) {
    try {
      return jdbc.statements().dialect.classify(e);
    } catch (InboxException unknown) {
      return SqlErrorKind.OTHER;
    }
  }

  private SchemaBusyException busy(String what, int attempts, SQLException last) {
    return new SchemaBusyException(
        "inbox schema: could not create the "
            + what
            + " of table '"
            + table
            + "' within "
            + creationTimeout
            + ": "
            + attempts
            + " attempt(s) each waited "
            + lockTimeout.toMillis()
            + " ms for a lock on '"
            + table
            + "' that other transactions held open (last error: "
            + last.getMessage()
            + " [SQLState "
            + last.getSQLState()
            + "]). Nothing was changed. End or commit the long-running transactions on '"
            + table
            + "' (pg_stat_activity, SHOW PROCESSLIST, INFORMATION_SCHEMA.SESSIONS), or run the"
            + " shipped DDL (schemaSql(), `inbox migrate`) when the table is quiet, or raise"
            + " schemaCreationTimeout(...)",
        last);
  }

  /** Backs off between attempts so waiting writers get through; never past the deadline. */
  private static void pause(int attempt, long nanosLeft) {
    long millis = Math.min(1_000, 50L << Math.min(attempt, 5));
    millis = Math.min(millis, Math.max(1, nanosLeft / 1_000_000));
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InboxException("interrupted while creating the inbox schema", e);
    }
  }
}
