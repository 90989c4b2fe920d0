package dev.archlab.inbox.jdbc.internal;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.Dialects;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.jdbc.schema.SchemaMissingException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The JDBC plumbing of one store: borrows pooled connections (autocommit, one per call), runs work
 * on a caller's connection, retries serialization failures and deadlocks, detects the dialect on a
 * connection already held, and translates SQL errors into the project's exceptions by their
 * SQLState and vendor code. Knows nothing of the inbox table's statements beyond building them once
 * per dialect.
 */
public final class JdbcRunner {

  private static final System.Logger LOG = System.getLogger(JdbcInboxStore.class.getName());

  private final DataSource dataSource;
  private final TableName table;
  private final int transientRetries;
  private final JdbcDialect configuredDialect;
  private volatile Statements statements;
  private volatile boolean connectionChecked;

  public JdbcRunner(
      DataSource dataSource, TableName table, int transientRetries, JdbcDialect configuredDialect) {
    this.dataSource = dataSource;
    this.table = table;
    this.transientRetries = transientRetries;
    this.configuredDialect = configuredDialect;
  }

  public TableName table() {
    return table;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** The dialect given to the builder, or null if it is detected on first use. */
  public JdbcDialect configuredDialect() {
    return configuredDialect;
  }

  /**
   * Work on a connection, given the statements already resolved for it: the work never asks the
   * runner for them while the runner holds the connection.
   */
  @FunctionalInterface
  public interface SqlWork<T> {
    T run(Connection c, Statements s) throws SQLException;
  }

  /** Work on a caller's connection (which the work already knows), given its statements. */
  @FunctionalInterface
  public interface CallerWork<T> {
    T run(Statements s) throws SQLException;
  }

  /**
   * Runs {@code work} on a pooled connection in autocommit mode, retrying transient failures when
   * {@code retryable}, and translating SQL errors into the project's exceptions.
   */
  public <T> T run(String operation, boolean retryable, SqlWork<T> work) {
    int attempt = 0;
    while (true) {
      attempt++;
      try (Connection c = dataSource.getConnection()) {
        // Detect on this connection: asking the pool for a second one while holding this one
        // deadlocks a pool that every thread has exhausted the same way.
        Statements s = statementsFor(c);
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
          c.setAutoCommit(true);
        }
        try {
          return work.run(c, s);
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

  public <T> T onCallerConnection(String operation, Connection c, CallerWork<T> work) {
    try {
      return work.run(statementsFor(c));
    } catch (SQLException e) {
      throw translate(operation, e, kindOf(e));
    }
  }

  private SqlErrorKind kindOf(SQLException e) {
    Statements s = statements;
    JdbcDialect d = s != null ? s.dialect : configuredDialect;
    // Before the dialect is known (detection failed), the registry says whose rules read it.
    JdbcDialect by = d != null ? d : Dialects.readingErrorsOf(e);
    SqlErrorKind kind = by.classify(e);
    // A pool that could not open a connection reports its own timeout and keeps the server's
    // answer as the cause (HikariCP keeps its SQLState but drops the vendor code): a refused
    // login or a missing database is said as such, not as "unreachable".
    if (kind == SqlErrorKind.CONNECTION || kind == SqlErrorKind.OTHER) {
      for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
        if (t instanceof SQLException cause) {
          SqlErrorKind inner = (d != null ? d : Dialects.readingErrorsOf(cause)).classify(cause);
          if (inner == SqlErrorKind.DATABASE_MISSING || inner == SqlErrorKind.ACCESS_DENIED) {
            return inner;
          }
        }
      }
    }
    return kind;
  }

  /** Translates an SQL error into the project's exceptions, by the dialect if known yet. */
  public InboxException translate(String operation, SQLException e) {
    return translate(operation, e, kindOf(e));
  }

  /** The dialect, detected on {@code c} (which the caller holds) if not known yet. */
  public JdbcDialect dialect(Connection c) throws SQLException {
    return statementsFor(c).dialect;
  }

  public InboxException translate(String operation, SQLException e, SqlErrorKind kind) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    JdbcDialect by =
        statements != null
            ? statements.dialect
            : configuredDialect != null ? configuredDialect : Dialects.readingErrorsOf(e);
    // A dialect's reading of its own vendor code says what the driver's message does not.
    String explained = by.explain(e);
    String detail =
        (explained != null ? explained + ": " : "")
            + e.getMessage()
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
            StoreUnavailableException.Reason.UNREACHABLE,
            "inbox " + operation + " failed: database unreachable: " + detail,
            e);
      case ACCESS_DENIED:
        return new StoreUnavailableException(
            StoreUnavailableException.Reason.LOGIN_REFUSED,
            "inbox " + operation + " failed: database refused the login: " + detail,
            e);
      case DATABASE_MISSING:
        return new StoreUnavailableException(
            StoreUnavailableException.Reason.DATABASE_MISSING,
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
  public Statements statements() {
    Statements s = statements;
    if (s != null) {
      return s;
    }
    try (Connection c = configuredDialect != null ? null : dataSource.getConnection()) {
      return statementsFor(c);
    } catch (SQLException e) {
      throw translate("dialect detection", e, kindOf(e));
    }
  }

  /**
   * The statements, detecting the dialect on {@code c} (which the caller already holds). For code
   * that owns its connection and transaction (the one-commit and batch consumers); work run by
   * {@link #run} or {@link #onCallerConnection} is handed the statements instead.
   */
  public Statements statementsFor(Connection c) throws SQLException {
    Statements s = statements;
    if (s == null) {
      synchronized (this) {
        s = statements;
        if (s == null) {
          JdbcDialect dialect =
              configuredDialect != null ? configuredDialect : JdbcDialect.detect(c);
          s = dialect.statements(table);
          statements = s;
        }
      }
    }
    if (!connectionChecked && c != null) {
      synchronized (this) {
        if (!connectionChecked) {
          // Once, on the first real connection: a pool's connections share their settings.
          s.dialect.checkConnection(c);
          connectionChecked = true;
        }
      }
    }
    return s;
  }
}
