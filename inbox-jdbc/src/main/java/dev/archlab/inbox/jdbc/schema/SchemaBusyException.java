package dev.archlab.inbox.jdbc.schema;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.jdbc.JdbcInboxStore;

/**
 * {@link JdbcInboxStore#createSchemaIfMissing()} had DDL to run (a missing table or index) but
 * could not get the lock it needs on the inbox table within the store's {@code
 * schemaCreationTimeout}, because other transactions on the table stayed open. Nothing was changed
 * and no writer was kept waiting for longer than one {@code schemaLockTimeout}. The message names
 * the table, the object that could not be created and what to do.
 */
public class SchemaBusyException extends InboxException {
  private static final long serialVersionUID = 1L;

  public SchemaBusyException(String message, Throwable cause) {
    super(message, cause);
  }
}
