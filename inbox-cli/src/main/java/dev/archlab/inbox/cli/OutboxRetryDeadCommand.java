package dev.archlab.inbox.cli;

import dev.archlab.inbox.Identifiers;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code inbox outbox retry-dead}: puts DEAD rows back for the relay. */
@Command(
    name = "retry-dead",
    mixinStandardHelpOptions = true,
    description = {
      "Puts DEAD outbox rows back to PENDING, due now: the relay publishes them again, each"
          + " before the rows of its key still pending. Fix what parked them first (a missing"
          + " topic, a payload over the broker's size limit)."
    },
    footer = {"", "Examples:", "  inbox outbox retry-dead 6f1c… 8e02…"})
final class OutboxRetryDeadCommand implements Callable<Integer> {

  @Mixin OutboxOptions options;

  @Parameters(paramLabel = "ID", arity = "1..*", description = "Message ids of DEAD rows.")
  List<String> ids;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    ids.forEach(Identifiers::requireMessageId);
    PrintWriter out = spec.commandLine().getOut();
    try (OutboxOptions.Opened opened = options.open(spec)) {
      int retried = 0;
      for (String id : ids) {
        if (opened.admin().retryDead(id)) {
          retried++;
        } else {
          out.printf("%s: no DEAD row with this id (left alone)%n", id);
        }
      }
      out.printf("%d DEAD row(s) are PENDING again%n", retried);
      return InboxCli.OK;
    }
  }
}
