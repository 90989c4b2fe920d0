package dev.archlab.inbox.jdbc.schema;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.internal.JdbcRunner;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One store's table definition: the shipped DDL rewritten for the configured table name, whether
 * the table is there, and creating what is missing of it without keeping writers waiting (see
 * {@link #createIfMissing()}). Obtained from {@link JdbcInboxStore#schema()}.
 */
public final class InboxSchema {

  private final JdbcRunner jdbc;
  private final TableName table;
  private final Duration lockTimeout;
  private final Duration creationTimeout;

  /**
   * The schema of the table {@code jdbc} works on. Built by {@link
   * dev.archlab.inbox.jdbc.JdbcInboxStore}; applications get it from {@code store.schema()}.
   *
   * @param jdbc the store's runner (internal)
   * @param lockTimeout how long DDL waits for the table's lock
   * @param creationTimeout how long a process waits for another one creating the table
   */
  public InboxSchema(JdbcRunner jdbc, Duration lockTimeout, Duration creationTimeout) {
    this.jdbc = jdbc;
    this.table = jdbc.table();
    this.lockTimeout = lockTimeout;
    this.creationTimeout = creationTimeout;
  }

  /**
   * The DDL for this store's table in its dialect, with the configured table name.
   *
   * @throws StoreUnavailableException if the dialect must be detected and the database cannot be
   *     reached
   */
  public String ddl() {
    return ddl(jdbc.statements().dialect, table);
  }

  /** The DDL shipped for {@code dialect}, rewritten for {@code table}. */
  public static String ddl(JdbcDialect dialect, TableName table) {
    String resource = dialect.schemaResource();
    try (InputStream in = InboxSchema.class.getClassLoader().getResourceAsStream(resource)) {
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
  public void createIfMissing() {
    new SchemaInstaller(jdbc, this, lockTimeout, creationTimeout).createIfMissing();
  }

  /**
   * Refuses schema timeouts out of range (the builder's check).
   *
   * @throws InvalidConfigurationException naming the bad timeout
   */
  public static void checkTimeouts(Duration lockTimeout, Duration creationTimeout) {
    if (lockTimeout == null
        || lockTimeout.compareTo(Duration.ofMillis(1)) < 0
        || lockTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new InvalidConfigurationException(
          "schemaLockTimeout must be between 1 ms and 1 minute, was " + lockTimeout);
    }
    if (creationTimeout == null
        || creationTimeout.compareTo(lockTimeout) < 0
        || creationTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new InvalidConfigurationException(
          "schemaCreationTimeout must be between schemaLockTimeout ("
              + lockTimeout
              + ") and 1 hour, was "
              + creationTimeout);
    }
  }

  /** Whether the inbox table exists and is readable. */
  public boolean exists() {
    try {
      jdbc.run(
          "check schema",
          true,
          (c, s) -> {
            try (PreparedStatement ps = c.prepareStatement(s.probe)) {
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

  /** The statements of a DDL script, without comments and trailing semicolons. */
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
}
