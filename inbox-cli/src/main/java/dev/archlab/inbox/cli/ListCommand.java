package dev.archlab.inbox.cli;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.operator.InboxOperations;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Lists records in one state, oldest first. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists records in one state, oldest first.",
    footer = {
      "",
      "Examples:",
      "  inbox list --state DEAD",
      "  inbox list --state PROCESSING --consumer billing --limit 20"
    })
final class ListCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Option(
      names = "--state",
      required = true,
      description = "PROCESSING, DONE or DEAD.",
      converter = StateConverter.class)
  RecordState state;

  @Option(names = "--consumer", description = "Only this consumer's records.")
  String consumer;

  @Option(
      names = "--limit",
      defaultValue = "50",
      description = "At most this many (default: ${DEFAULT-VALUE}).")
  int limit;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (limit < 1 || limit > 100_000) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--limit must be between 1 and 100000, was " + limit);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (OperatorStore opened = db.openOperatorStore()) {
      InboxOperations store = opened.operations();
      var records = store.list(state, consumer, limit);
      out.printf(
          "%-20s %-40s %-10s %8s  %-27s %s%n",
          "CONSUMER", "MESSAGE ID", "STATE", "ATTEMPTS", "LEASE UNTIL", "LAST ERROR");
      for (InboxRecord r : records) {
        out.printf(
            "%-20s %-40s %-10s %8d  %-27s %s%n",
            r.consumer(),
            r.messageId(),
            r.state(),
            r.attempts(),
            Output.instant(r.leaseUntil()),
            r.lastError() == null ? "" : InboxCli.oneLine(new RuntimeException(r.lastError())));
      }
      out.printf("%d record(s)%n", records.size());
      return InboxCli.OK;
    }
  }

  /** Accepts a state name in any case, with a clear error otherwise. */
  static final class StateConverter implements picocli.CommandLine.ITypeConverter<RecordState> {
    @Override
    public RecordState convert(String value) {
      try {
        return RecordState.valueOf(value.strip().toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(
            "invalid state '" + value + "': use PROCESSING, DONE or DEAD");
      }
    }
  }
}
