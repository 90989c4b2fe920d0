package dev.archlab.inbox.cli;

import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Per consumer: states, stuck leases, dead letters, records waiting for prune. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Per consumer: records by state, the oldest PROCESSING record's age, expired leases"
          + " (stuck: owner gone or not yet redelivered), DEAD records, and DONE records past the"
          + " retention window (waiting for prune). Times are the database's."
    },
    footer = {
      "",
      "Examples:",
      "  inbox status",
      "  inbox status --retention 14d --db jdbc:postgresql://localhost/app"
    })
final class StatusCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Option(
      names = "--retention",
      defaultValue = "7d",
      converter = Durations.class,
      description = "Dedup retention, for 'past retention' (default: ${DEFAULT-VALUE}).")
  Duration retention;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (OperatorStore opened = db.openOperatorStore()) {
      InboxOperations store = opened.operations();
      List<ConsumerOverview> stats = store.stats(retention);
      if (stats.isEmpty()) {
        out.println("no records in " + store.location());
        return InboxCli.OK;
      }
      out.printf(
          "%-24s %10s %10s %8s %8s %14s %14s%n",
          "CONSUMER",
          "PROCESSING",
          "DONE",
          "DEAD",
          "STUCK",
          "OLDEST ACTIVE",
          "PAST " + Durations.format(retention));
      for (ConsumerOverview s : stats) {
        out.printf(
            "%-24s %10d %10d %8d %8d %14s %14d%n",
            s.consumer(),
            s.processing(),
            s.done(),
            s.dead(),
            s.expiredLeases(),
            s.processing() == 0 ? "-" : Output.age(s.oldestProcessingAge()),
            s.pastRetention());
      }
      return InboxCli.OK;
    }
  }
}
