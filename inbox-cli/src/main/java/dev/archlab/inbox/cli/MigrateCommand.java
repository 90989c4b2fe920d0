package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.Statements;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Creates the inbox table, or checks that the one there has the schema's shape. There is one
 * version of the schema (V1), so an upgrade is: create what is missing (the table, its index), and
 * refuse, naming the missing columns, a table of that name with another shape.
 */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Creates the inbox table and its index if missing (safe to repeat). A table of that name"
          + " that lacks any of the schema's columns is refused (exit 1), naming them, and left"
          + " unchanged. --print shows the DDL for the database instead."
    },
    footer = {
      "",
      "Examples:",
      "  inbox migrate",
      "  inbox migrate --db jdbc:mariadb://localhost/app --user app --table orders_inbox",
      "  inbox migrate --print"
    })
final class MigrateCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Option(names = "--print", description = "Print the DDL instead of running it.")
  boolean print;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws SQLException {
    PrintWriter out = spec.commandLine().getOut();
    try (HikariDataSource ds = db.open(2)) {
      JdbcInboxStore store = db.store(ds);
      if (print) {
        out.println(store.schemaSql());
        return InboxCli.OK;
      }
      Set<String> present = columns(ds, store.table());
      if (present.isEmpty()) {
        store.createSchemaIfMissing();
        out.printf("table %s created (%s)%n", store.table(), store.dialect().name());
        return InboxCli.OK;
      }
      // Only V1 of the schema exists: a table of another shape is not something to upgrade.
      List<String> missing = new ArrayList<>();
      for (String column : EXPECTED_COLUMNS) {
        if (!present.contains(column)) {
          missing.add(column);
        }
      }
      if (!missing.isEmpty()) {
        spec.commandLine()
            .getErr()
            .printf(
                "inbox: table %s exists but is not an inbox table: it lacks column(s) %s of the"
                    + " %d the schema has; nothing was changed (drop or rename it, or choose"
                    + " another --table)%n",
                store.table(), String.join(", ", missing), EXPECTED_COLUMNS.size());
        return InboxCli.FAILURE;
      }
      // Every column is there; this adds the index if it is missing and changes nothing else.
      store.createSchemaIfMissing();
      out.printf("table %s is up to date (%s)%n", store.table(), store.dialect().name());
      return InboxCli.OK;
    }
  }

  /** The columns of the schema (V1), lower case. */
  static final List<String> EXPECTED_COLUMNS =
      Arrays.stream(Statements.COLUMNS.split(","))
          .map(c -> c.strip().toLowerCase(Locale.ROOT))
          .toList();

  /**
   * The columns of {@code table} as the database's metadata lists them, lower case; empty if there
   * is no such table. Table and schema names are matched case-insensitively, in the connection's
   * current schema (or catalog, on MySQL and MariaDB) unless the name is qualified.
   */
  static Set<String> columns(HikariDataSource ds, TableName table) throws SQLException {
    String qualified = table.value();
    int dot = qualified.indexOf('.');
    String schema = dot < 0 ? null : qualified.substring(0, dot);
    String name = table.baseName();
    try (Connection c = ds.getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      String catalog = c.getCatalog();
      String currentSchema = schema != null ? schema : currentSchema(c);
      Set<String> out = new LinkedHashSet<>();
      // Databases store unquoted names in upper case (H2), lower case (PostgreSQL) or as written.
      for (String pattern :
          new LinkedHashSet<>(
              List.of(name, name.toUpperCase(Locale.ROOT), name.toLowerCase(Locale.ROOT)))) {
        try (ResultSet rs = md.getColumns(null, null, pattern, "%")) {
          while (rs.next()) {
            String tableName = rs.getString("TABLE_NAME");
            String tableSchema = rs.getString("TABLE_SCHEM");
            String tableCatalog = rs.getString("TABLE_CAT");
            if (!name.equalsIgnoreCase(tableName)) {
              continue; // '_' is a wildcard in the pattern
            }
            boolean here =
                tableSchema != null
                    ? currentSchema == null || currentSchema.equalsIgnoreCase(tableSchema)
                    : schema != null
                        ? schema.equalsIgnoreCase(tableCatalog)
                        : catalog == null || catalog.equalsIgnoreCase(tableCatalog);
            if (here) {
              out.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
            }
          }
        }
      }
      return out;
    }
  }

  private static String currentSchema(Connection c) {
    try {
      return c.getSchema();
    } catch (SQLException e) {
      return null;
    }
  }
}
