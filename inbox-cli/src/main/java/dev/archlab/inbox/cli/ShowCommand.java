package dev.archlab.inbox.cli;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.operator.InboxOperations;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Shows one record in full. */
@Command(
    name = "show",
    mixinStandardHelpOptions = true,
    description = "Shows one record in full. Exit 1 if there is none.",
    footer = {"", "Examples:", "  inbox show billing evt-2026-10-17-0042"})
final class ShowCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Parameters(index = "0", paramLabel = "CONSUMER")
  String consumer;

  @Parameters(index = "1", paramLabel = "ID")
  String messageId;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    // Validated before touching the database: a malformed argument is a usage error.
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    PrintWriter out = spec.commandLine().getOut();
    try (OperatorStore opened = db.openOperatorStore()) {
      InboxOperations store = opened.operations();
      Optional<InboxRecord> found = store.find(consumer, messageId);
      if (found.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println("inbox: no record for consumer '" + consumer + "' and id '" + messageId + "'");
        return InboxCli.FAILURE;
      }
      print(out, found.get(), store.currentTime());
      return InboxCli.OK;
    }
  }

  static void print(PrintWriter out, InboxRecord r, java.time.Instant dbNow) {
    out.println("consumer:     " + r.consumer());
    out.println("message id:   " + r.messageId());
    out.println("state:        " + r.state());
    out.println("attempts:     " + r.attempts());
    String lease = Output.instant(r.leaseUntil());
    if (r.leaseUntil() != null) {
      lease +=
          r.leaseUntil().isAfter(dbNow)
              ? " (in " + Output.age(java.time.Duration.between(dbNow, r.leaseUntil())) + ")"
              : " (expired "
                  + Output.age(java.time.Duration.between(r.leaseUntil(), dbNow))
                  + " ago)";
    }
    out.println("lease until:  " + lease);
    out.println("created at:   " + r.createdAt());
    out.println("updated at:   " + r.updatedAt());
    out.println("last error:   " + (r.lastError() == null ? "-" : r.lastError()));
    out.println("payload hash: " + (r.payloadHash() == null ? "-" : r.payloadHash()));
    out.println("result:       " + (r.result() == null ? "-" : r.result().length + " bytes"));
  }
}
