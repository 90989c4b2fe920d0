package dev.archlab.inbox.cli;

import dev.archlab.inbox.outbox.OutboxAdmin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/** {@code inbox outbox status}: rows by state and the age of the oldest unsent one. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Outbox rows by state (PENDING: not yet acknowledged by the broker; SENT: acknowledged,"
          + " kept until the relay's retention; DEAD: parked for an operator) and how long the"
          + " oldest PENDING row has waited."
    })
final class OutboxStatusCommand implements Callable<Integer> {

  @Mixin OutboxOptions options;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (OutboxOptions.Opened opened = options.open(spec)) {
      OutboxAdmin admin = opened.admin();
      OutboxAdmin.Counts counts = admin.counts();
      out.printf(
          "%-20s %10s %10s %8s %16s%n", "OUTBOX", "PENDING", "SENT", "DEAD", "OLDEST PENDING");
      out.printf(
          "%-20s %10d %10d %8d %16s%n",
          opened.outbox().table().value(),
          counts.pending(),
          counts.sent(),
          counts.dead(),
          admin.oldestPendingAge().map(Output::age).orElse("-"));
      return InboxCli.OK;
    }
  }
}
