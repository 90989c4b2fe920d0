package dev.archlab.inbox.cli;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.operator.InboxOperations;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Makes DEAD messages retryable again. */
@Command(
    name = "retry-dead",
    mixinStandardHelpOptions = true,
    description = {
      "Makes DEAD records retryable: their next delivery starts again at attempt 1 with the full"
          + " retry budget. Without IDs, every DEAD record of the consumer. Redeliver the messages"
          + " from the broker (or its dead-letter queue) afterwards."
    },
    footer = {
      "",
      "Examples:",
      "  inbox retry-dead billing evt-41 evt-42",
      "  inbox retry-dead billing"
    })
final class RetryDeadCommand implements Callable<Integer> {

  @Mixin DbOptions db;

  @Parameters(index = "0", paramLabel = "CONSUMER")
  String consumer;

  @Parameters(index = "1..*", paramLabel = "ID", arity = "0..*")
  List<String> ids = List.of();

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Identifiers.requireConsumerName(consumer);
    ids.forEach(id -> Identifiers.requireMessageId(id));
    try (OperatorStore opened = db.openOperatorStore()) {
      InboxOperations store = opened.operations();
      long count = store.retryDead(consumer, ids);
      spec.commandLine()
          .getOut()
          .printf("%d DEAD record(s) of %s are retryable again%n", count, consumer);
      return InboxCli.OK;
    }
  }
}
