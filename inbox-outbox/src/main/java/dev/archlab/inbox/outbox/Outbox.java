package dev.archlab.inbox.outbox;

import dev.archlab.inbox.Attempt;
import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A transactional outbox: one table of outgoing messages beside the inbox, written in the
 * transaction that makes the business change, published afterwards by an {@link OutboxRelay}.
 *
 * <p>Guarantees: a message is written only through the connection the caller passes, so it commits
 * exactly when the caller's transaction commits and disappears with its rollback (a failed attempt,
 * a stale owner fenced out by the inbox). A message whose id is already in the table is not written
 * again; the first one stays. Times (created, due, sent) are the database's clock, never the JVM's.
 * All SQL comes from constants and the validated table name.
 *
 * <ul>
 *   <li>In a {@code TransactionalHandler} or a one-commit handler: {@code outbox.sendsOf(attempt,
 *       connection).send(destination, key, payload)}: ids derived from the consumer, the incoming
 *       message id and the send's position ({@link OutgoingIds#derived}).
 *   <li>In a {@code TransactionalBatchHandler}, per message: {@code outbox.sendsOf(consumerName,
 *       message, connection)}.
 *   <li>From any transaction (a web request): {@link #send(Connection, OutboxMessage)} with the
 *       caller's id or a random one ({@link OutboxMessage#of}).
 * </ul>
 *
 * <p>Built once with {@link #builder}; immutable apart from the dialect detected on first use, and
 * thread-safe.
 */
public final class Outbox {

  /** The default table name. */
  public static final String DEFAULT_TABLE = "inbox_outbox";

  private final DataSource dataSource;
  private final TableName table;
  private volatile OutboxStatements statements;

  private Outbox(Builder b) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.statements = b.dialect == null ? null : OutboxStatements.of(b.dialect, b.table);
  }

  /**
   * A builder for an outbox whose table lives in the database behind {@code dataSource}.
   *
   * @param dataSource where the relay, the schema check and the operator reads get connections
   * @return a builder with the defaults: table {@value #DEFAULT_TABLE}, dialect detected
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * The validated table name.
   *
   * @return the outbox table's name
   */
  public TableName table() {
    return table;
  }

  /**
   * The data source the relay and the operator reads use.
   *
   * @return the data source given to the builder
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * A sender for one run of a handler on {@code attempt}, writing through {@code connection} (the
   * handler's transaction).
   *
   * @param attempt the attempt the handler runs under
   * @param connection the handler's connection
   * @return a sender whose sends take positions 0, 1, 2, … in this run
   */
  public OutboxSender sendsOf(Attempt attempt, Connection connection) {
    Objects.requireNonNull(attempt, "attempt");
    return sendsOf(attempt.consumer(), attempt.messageId(), connection);
  }

  /**
   * A sender for one message of a batch handler's run, writing through {@code connection} (the
   * batch's transaction).
   *
   * @param consumer the consumer's name, as given to its builder
   * @param message the incoming message whose effects send
   * @param connection the batch handler's connection
   * @return a sender whose sends take positions 0, 1, 2, … for this message
   */
  public OutboxSender sendsOf(String consumer, Message message, Connection connection) {
    Objects.requireNonNull(message, "message");
    return sendsOf(consumer, message.id(), connection);
  }

  private OutboxSender sendsOf(String consumer, String messageId, Connection connection) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    Objects.requireNonNull(connection, "connection");
    return new OutboxSender(this, connection, consumer, messageId);
  }

  /**
   * Writes {@code message} through {@code connection}, in whatever transaction it has open.
   *
   * @param connection the caller's connection
   * @param message the message to send
   * @return true if it was written, false if a message with its id is already in the table (then
   *     nothing changed)
   * @throws InboxException if the row cannot be written: the table is missing, the database is
   *     unreachable ({@link dev.archlab.inbox.StoreUnavailableException}), or another SQL error
   */
  public boolean send(Connection connection, OutboxMessage message) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(message, "message");
    OutboxStatements s = statements(connection);
    try (PreparedStatement ps = connection.prepareStatement(s.insert)) {
      ps.setString(1, message.id());
      ps.setString(2, message.destination());
      ps.setString(3, message.key());
      byte[] payload = message.payload();
      if (payload == null) {
        ps.setNull(4, Types.VARBINARY);
      } else {
        ps.setBytes(4, payload);
      }
      byte[] headers = HeaderCodec.encode(message.headers());
      if (headers == null) {
        ps.setNull(5, Types.VARBINARY);
      } else {
        ps.setBytes(5, headers);
      }
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (!s.insertSkipsDuplicates() && s.dialect.classify(e) == SqlErrorKind.UNIQUE_VIOLATION) {
        return false;
      }
      throw SqlErrors.translate("send to outbox '" + table + "'", e, s.dialect);
    }
  }

  /**
   * The DDL of this outbox's table in its database, with the configured table name.
   *
   * @return the shipped DDL rewritten for this table
   * @throws InboxException if the dialect must be detected and the database cannot be reached
   */
  public String schemaSql() {
    return schemaSql(statements().dialect, table);
  }

  /**
   * The DDL shipped for {@code dialect} ({@code dev/archlab/inbox/outbox/schema/<dialect>/
   * V1__create_outbox.sql}), rewritten for {@code table}.
   *
   * @param dialect the database's dialect
   * @param table the table name
   * @return the DDL script
   * @throws InvalidConfigurationException if no DDL is shipped for the dialect
   */
  public static String schemaSql(JdbcDialect dialect, TableName table) {
    String resource =
        "dev/archlab/inbox/outbox/schema/" + dialect.name() + "/V1__create_outbox.sql";
    try (InputStream in = Outbox.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new InvalidConfigurationException(
            "no outbox DDL is shipped for the database dialect '" + dialect.name() + "'");
      }
      String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      // Index and constraint names take the bare table name; table references the full one.
      return ddl.replaceAll("\\binbox_outbox_", table.baseName() + "_")
          .replaceAll("\\binbox_outbox\\b", table.value());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Creates the table and its indexes if the table does not exist; safe on every start and from
   * several processes at once (each statement is {@code IF NOT EXISTS}; one that loses a race with
   * another process is run once more). The schema qualifying the table name is never created.
   *
   * @throws InvalidConfigurationException if the schema qualifying the table name does not exist
   * @throws InboxException if the DDL fails, or the database is unreachable
   */
  public void createSchemaIfMissing() {
    try (Connection c = dataSource.getConnection()) {
      OutboxStatements s = statements(c);
      JdbcDialect d = s.dialect;
      String namespace = table.schemaName();
      if (namespace != null && !d.namespaceExists(c, namespace)) {
        throw new InvalidConfigurationException(
            "outbox table '" + table + "': schema '" + namespace + "' does not exist; create it");
      }
      if (d.tableExists(c, namespace, table.baseName())) {
        return;
      }
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        for (String sql : splitStatements(schemaSql(d, table))) {
          try {
            st.execute(sql);
          } catch (SQLException raced) {
            // Another process created the object between our check and this statement; with IF
            // NOT EXISTS the second run finds it and succeeds. A real error fails again.
            st.execute(sql);
          }
        }
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("create outbox table '" + table + "'", e, null);
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
    return out;
  }

  /**
   * An operator's view of the table: counts, oldest pending age, listing and retrying DEAD rows.
   *
   * @return the operator reads of this outbox
   */
  public OutboxAdmin admin() {
    return new OutboxAdmin(this);
  }

  /** The statements, detecting the dialect on a pooled connection if not known yet. */
  OutboxStatements statements() {
    OutboxStatements s = statements;
    if (s != null) {
      return s;
    }
    try (Connection c = dataSource.getConnection()) {
      return statements(c);
    } catch (SQLException e) {
      throw SqlErrors.translate("connect to the outbox's database", e, null);
    }
  }

  /** The statements, detecting the dialect on {@code c} if not known yet. */
  OutboxStatements statements(Connection c) {
    OutboxStatements s = statements;
    if (s == null) {
      try {
        s = OutboxStatements.of(JdbcDialect.detect(c), table);
      } catch (SQLException e) {
        throw SqlErrors.translate("detect the outbox's database", e, null);
      }
      statements = s;
    }
    return s;
  }

  /**
   * Builds an {@link Outbox}. Defaults: table {@value Outbox#DEFAULT_TABLE}; the dialect detected
   * from the first connection's metadata, as the JDBC inbox store does.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private TableName table = TableName.of(DEFAULT_TABLE);
    private JdbcDialect dialect;

    private Builder(DataSource dataSource) {
      if (dataSource == null) {
        throw new InvalidConfigurationException("outbox dataSource must not be null");
      }
      this.dataSource = dataSource;
    }

    /**
     * The table's name: a plain SQL identifier, optionally schema-qualified ({@link TableName}).
     *
     * @param table the table name
     * @return this builder
     * @throws InvalidConfigurationException if it is not a plain identifier
     */
    public Builder table(String table) {
      this.table = TableName.of(table);
      return this;
    }

    /**
     * The database's dialect, instead of detecting it.
     *
     * @param dialect one of {@link dev.archlab.inbox.jdbc.dialect.Dialects#all()} or your own
     * @return this builder
     */
    public Builder dialect(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * The outbox.
     *
     * @return a new outbox
     */
    public Outbox build() {
      return new Outbox(this);
    }
  }
}
