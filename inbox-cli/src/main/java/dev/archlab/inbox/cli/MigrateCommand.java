package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Creates (or upgrades) the inbox table. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Creates the inbox table and its index if missing (safe to repeat). --print shows the DDL"
          + " for the database instead."
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
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (HikariDataSource ds = db.dataSource(2)) {
      JdbcInboxStore store = db.store(ds);
      if (print) {
        out.println(store.schemaSql());
        return InboxCli.OK;
      }
      boolean existed = store.schemaExists();
      store.createSchemaIfMissing();
      out.printf(
          "table %s %s (%s)%n",
          store.table(), existed ? "is up to date" : "created", store.dialect().name());
      return InboxCli.OK;
    }
  }
}
