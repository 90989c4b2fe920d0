package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.InvalidConfigurationException;
import java.util.regex.Pattern;

/**
 * A validated table name: a plain SQL identifier (letter or underscore, then letters, digits or
 * underscores; at most {@value #MAX_LENGTH} characters so derived index names stay within every
 * database's limit), optionally qualified by one schema name of the same form. It is the only part
 * of the store's SQL that comes from configuration, so it is checked before any SQL is built.
 *
 * <p>Both parts are used unquoted, so the database folds their case as it does for any unquoted
 * name (PostgreSQL to lower case, H2 to upper case; MySQL and MariaDB keep it). A qualified name's
 * schema must exist: {@link JdbcInboxStore#createSchemaIfMissing()} creates the table and its index
 * in it, never the schema itself, and says so if it is missing.
 */
public record TableName(String value) {

  /** Longest table name accepted, so {@code <name>_state_updated_idx} fits in 63 characters. */
  public static final int MAX_LENGTH = 40;

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * @throws InvalidConfigurationException if the name is not a plain identifier
   */
  public TableName {
    if (value == null || value.isEmpty()) {
      throw new InvalidConfigurationException("inbox table name must not be empty");
    }
    String[] parts = value.split("\\.", -1);
    if (parts.length > 2) {
      throw new InvalidConfigurationException(
          "inbox table name '"
              + printable(value)
              + "' has more than one '.'; use table or schema.table");
    }
    for (String part : parts) {
      if (!IDENTIFIER.matcher(part).matches() || part.length() > MAX_LENGTH) {
        throw new InvalidConfigurationException(
            "inbox table name '"
                + printable(value)
                + "' is not a plain SQL identifier: use letters, digits and '_', start with a"
                + " letter or '_', at most "
                + MAX_LENGTH
                + " characters; optionally qualified by a schema of the same form, as"
                + " schema.table");
      }
    }
  }

  public static TableName of(String value) {
    return new TableName(value);
  }

  /**
   * The schema (on MySQL and MariaDB: the database) qualifying the name, or null for an unqualified
   * name, which means the connection's current schema.
   */
  public String schemaName() {
    int dot = value.indexOf('.');
    return dot < 0 ? null : value.substring(0, dot);
  }

  /** The table part without a schema, used to derive index and constraint names. */
  public String baseName() {
    int dot = value.indexOf('.');
    return dot < 0 ? value : value.substring(dot + 1);
  }

  @Override
  public String toString() {
    return value;
  }

  private static String printable(String s) {
    String cut = s.length() > 60 ? s.substring(0, 60) + "..." : s;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }
}
