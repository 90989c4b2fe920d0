package dev.archlab.inbox.cli;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.operator.InboxOperations;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Ends a live lease now. */
@Command(
    name = "release",
    mixinStandardHelpOptions = true,
    description = {
      "Ends a PROCESSING record's lease now, so another instance takes the message over at its"
          + " next delivery. For an owner you know is gone; a live owner is fenced out and its"
          + " completion refused. Exit 1 if there is no PROCESSING record."
    },
    footer = {"", "Examples:", "  inbox release billing evt-42"})
final class ReleaseCommand implements Callable<Integer> {

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
    try (OperatorStore opened = db.openOperatorStore()) {
      InboxOperations store = opened.operations();
      Optional<InboxRecord> released = store.release(consumer, messageId);
      if (released.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "inbox: no PROCESSING record for consumer '"
                    + consumer
                    + "' and id '"
                    + messageId
                    + "'");
        return InboxCli.FAILURE;
      }
      spec.commandLine()
          .getOut()
          .printf(
              "released %s/%s (attempt %d); the next delivery takes it over%n",
              consumer, messageId, released.get().attempts());
      return InboxCli.OK;
    }
  }
}
