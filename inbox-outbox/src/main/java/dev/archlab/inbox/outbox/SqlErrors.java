package dev.archlab.inbox.outbox;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.dialect.Dialects;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import java.sql.SQLException;

/** Turns an SQL failure into the project's exceptions, read by the database's own rules. */
final class SqlErrors {

  private SqlErrors() {}

  /**
   * @param dialect the detected dialect, or null when none is known yet (then the registry picks
   *     the one whose driver raised it)
   */
  static InboxException translate(String action, SQLException e, JdbcDialect dialect) {
    JdbcDialect d = dialect != null ? dialect : Dialects.readingErrorsOf(e);
    String what =
        "could not "
            + action
            + ": "
            + e.getMessage()
            + " [SQLState "
            + e.getSQLState()
            + ", code "
            + e.getErrorCode()
            + "]";
    switch (d.classify(e)) {
      case CONNECTION:
        return new StoreUnavailableException(StoreUnavailableException.Reason.UNREACHABLE, what, e);
      case ACCESS_DENIED:
        return new StoreUnavailableException(
            StoreUnavailableException.Reason.LOGIN_REFUSED, what, e);
      case DATABASE_MISSING:
        return new StoreUnavailableException(
            StoreUnavailableException.Reason.DATABASE_MISSING, what, e);
      case SCHEMA_MISSING:
        return new InboxException(
            what
                + " (is the outbox table missing? create it with Outbox.createSchemaIfMissing()"
                + " or the shipped DDL, Outbox.schemaSql())",
            e);
      default:
        return new InboxException(what, e);
    }
  }
}
