package dev.archlab.inbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code inbox outbox}: the operator commands on a transactional outbox table ({@code status},
 * {@code list}, {@code retry-dead}). The outbox lives in a JDBC database, so a Redis URL is refused
 * as a usage error.
 */
@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    description = {
      "The outbox of messages handlers sent: its backlog, its rows, and DEAD rows put back for"
          + " the relay. Times are the database's."
    },
    subcommands = {
      OutboxStatusCommand.class,
      OutboxListCommand.class,
      OutboxRetryDeadCommand.class
    },
    footer = {
      "",
      "Examples:",
      "  inbox outbox status --db jdbc:postgresql://db:5432/app --user app",
      "  inbox outbox list --state DEAD",
      "  inbox outbox retry-dead 6f1c…"
    })
final class OutboxCommand implements Runnable {

  @picocli.CommandLine.Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing command: inbox outbox status, list or retry-dead");
  }
}
