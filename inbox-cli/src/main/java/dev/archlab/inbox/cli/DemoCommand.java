package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Tells the seed article's story live against the selected database. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the seed story live: repeat delivery, concurrent duplicates, failure with retry, crash"
          + " and takeover, a fenced stale owner, a poison message, the dedup-window edge, and a"
          + " message sent through the outbox once although its handler ran twice. Creates the"
          + " inbox and outbox tables if they are missing. Exit 0 when every scenario held."
    },
    footer = {
      "",
      "Examples:",
      "  inbox demo",
      "  inbox demo --json",
      "  inbox demo --db jdbc:postgresql://localhost/app --user app"
    })
final class DemoCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (HikariDataSource ds = db.open(12)) {
      JdbcInboxStore store = db.store(ds);
      store.createSchemaIfMissing();
      String where =
          db.isEmbeddedDefault() ? "embedded SQLite ./.inbox/inbox.db" : store.dialect().name();
      String runId = "demo-" + System.currentTimeMillis();
      List<SeedStory.Scenario> scenarios = new ArrayList<>(new SeedStory(store, runId).runAll());
      scenarios.add(new OutboxStory(store, ds, runId).sentOnceThoughRunTwice());
      long held = scenarios.stream().filter(SeedStory.Scenario::passed).count();
      boolean all = held == scenarios.size();
      if (json) {
        printJson(out, where, scenarios, all);
      } else {
        out.printf("inbox demo on %s, table %s%n%n", where, store.table());
        for (SeedStory.Scenario s : scenarios) {
          out.printf(
              "%-4s %-48s handler calls=%d attempts=%d%n     outcomes: %s%n     %s%n",
              s.passed() ? "ok" : "FAIL",
              s.name(),
              s.handlerCalls(),
              s.attempts(),
              String.join(" -> ", s.outcomes()),
              s.note());
        }
        out.printf(
            "%nverdict: %s (%d of %d scenarios held)%n",
            all ? "EXACTLY-ONCE EFFECT HELD" : "VIOLATION", held, scenarios.size());
      }
      out.flush();
      return all ? InboxCli.OK : InboxCli.FAILURE;
    }
  }

  private static void printJson(
      PrintWriter out, String where, List<SeedStory.Scenario> scenarios, boolean all) {
    StringBuilder sb = new StringBuilder("{\"database\":").append(Output.json(where));
    sb.append(",\"scenarios\":[");
    for (int i = 0; i < scenarios.size(); i++) {
      SeedStory.Scenario s = scenarios.get(i);
      sb.append(i == 0 ? "" : ",")
          .append("{\"name\":")
          .append(Output.json(s.name()))
          .append(",\"passed\":")
          .append(s.passed())
          .append(",\"handlerCalls\":")
          .append(s.handlerCalls())
          .append(",\"attempts\":")
          .append(s.attempts())
          .append(",\"outcomes\":[");
      for (int j = 0; j < s.outcomes().size(); j++) {
        sb.append(j == 0 ? "" : ",").append(Output.json(s.outcomes().get(j)));
      }
      sb.append("],\"note\":").append(Output.json(s.note())).append('}');
    }
    sb.append("],\"verdict\":").append(Output.json(all ? "HELD" : "VIOLATION")).append('}');
    out.println(sb);
  }
}
