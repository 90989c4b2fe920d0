package dev.archlab.inbox.cli;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.operator.InboxOperations;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Deletes DONE records older than the window, in batches. */
@Command(
    name = "prune",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes DONE records not updated for --older-than, in short batches (never PROCESSING or"
          + " DEAD). Refuses a window that is not longer than the broker's redelivery window: a"
          + " redelivery after its record is gone would apply the message again."
    },
    footer = {
      "",
      "Examples:",
      "  inbox prune --older-than 7d --dry-run",
      "  inbox prune --older-than 14d --redelivery-window 3d --consumer billing"
    })
final class PruneCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Option(
      names = "--older-than",
      required = true,
      converter = Durations.class,
      description = "Delete DONE records not updated for this long (e.g. 7d).")
  Duration olderThan;

  @Option(
      names = "--redelivery-window",
      defaultValue = "1d",
      converter = Durations.class,
      description = "The broker's longest redelivery window (default: ${DEFAULT-VALUE}).")
  Duration redeliveryWindow;

  @Option(names = "--consumer", description = "Only this consumer's records.")
  String consumer;

  @Option(names = "--dry-run", description = "Count what would be deleted; delete nothing.")
  boolean dryRun;

  @Option(names = "--no-progress", description = "Never draw the progress bar.")
  boolean noProgress;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    // Validates the window against the redelivery window; refusal is a usage error.
    DedupWindow.of(olderThan, redeliveryWindow);
    PrintWriter out = spec.commandLine().getOut();
    try (OperatorStore opened = db.openOperatorStore()) {
      InboxOperations store = opened.operations();
      Instant before = store.currentTime().minus(olderThan);
      long candidates = store.countPrunable(consumer, before);
      if (dryRun) {
        out.printf("would delete %d DONE record(s) not updated since %s%n", candidates, before);
        return InboxCli.OK;
      }
      Output.Progress progress =
          new Output.Progress(spec.commandLine().getErr(), "pruning", candidates, !noProgress);
      long deleted = store.prune(consumer, before, progress::update);
      progress.finish();
      out.printf("deleted %d DONE record(s) not updated since %s%n", deleted, before);
      return InboxCli.OK;
    }
  }
}
