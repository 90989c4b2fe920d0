package dev.archlab.inbox.cli;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.outbox.OutboxAdmin;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code inbox outbox list}: the rows of one state, in the order the relay publishes them. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists outbox rows in one state, in the order the relay publishes them.",
    footer = {
      "",
      "Examples:",
      "  inbox outbox list --state DEAD",
      "  inbox outbox list --state PENDING --limit 20"
    })
final class OutboxListCommand implements Callable<Integer> {

  @Mixin OutboxOptions options;

  @Option(
      names = "--state",
      required = true,
      description = "PENDING, SENT or DEAD.",
      converter = StateConverter.class)
  OutboxAdmin.State state;

  @Option(
      names = "--limit",
      defaultValue = "50",
      description = "At most this many, 1 to 10000 (default: ${DEFAULT-VALUE}).")
  int limit;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (limit < 1 || limit > 10_000) {
      throw new ParameterException(
          spec.commandLine(), "--limit must be between 1 and 10000, was " + limit);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (OutboxOptions.Opened opened = options.open(spec)) {
      List<OutboxAdmin.Entry> rows = opened.admin().list(state, limit);
      out.printf(
          "%-40s %-24s %-16s %-8s %8s  %-27s %s%n",
          "MESSAGE ID", "DESTINATION", "KEY", "STATE", "ATTEMPTS", "CREATED", "LAST ERROR");
      for (OutboxAdmin.Entry e : rows) {
        out.printf(
            "%-40s %-24s %-16s %-8s %8d  %-27s %s%n",
            e.row().id(),
            e.row().destination(),
            e.row().key() == null ? "-" : e.row().key(),
            e.state(),
            e.row().attempts(),
            Output.instant(e.createdAt()),
            e.lastError() == null ? "" : InboxCli.oneLine(new RuntimeException(e.lastError())));
      }
      out.printf("%d row(s)%n", rows.size());
      return InboxCli.OK;
    }
  }

  /** Accepts a state name in any case, with a clear error otherwise. */
  static final class StateConverter implements ITypeConverter<OutboxAdmin.State> {
    @Override
    public OutboxAdmin.State convert(String value) {
      try {
        return OutboxAdmin.State.parse(value);
      } catch (InvalidArgumentException e) {
        throw new TypeConversionException(
            "invalid state '" + value + "': use PENDING, SENT or DEAD");
      }
    }
  }
}
