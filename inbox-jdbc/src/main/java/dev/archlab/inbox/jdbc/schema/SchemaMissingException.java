package dev.archlab.inbox.jdbc.schema;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.jdbc.JdbcInboxStore;

/**
 * The inbox table (or one of its columns) does not exist. Create it with {@link
 * JdbcInboxStore#createSchemaIfMissing()} or the DDL shipped for the database.
 */
public class SchemaMissingException extends InboxException {
  private static final long serialVersionUID = 1L;

  public SchemaMissingException(String message, Throwable cause) {
    super(message, cause);
  }
}
