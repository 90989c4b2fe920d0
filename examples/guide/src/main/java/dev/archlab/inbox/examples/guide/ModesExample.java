package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.BatchItemFailedException;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The guide's "choosing a mode" page: the same ledger write in the three modes of a JDBC store
 * (lease, one-commit, batch). Each method consumes the given messages and returns their outcomes;
 * each consumer has its own name, so its records are its own.
 */
public final class ModesExample {

  private final DataSource dataSource;
  private final JdbcInboxStore store;

  /**
   * Creates the inbox table and the ledger table on the given database.
   *
   * @param dataSource the database (the guide's test uses a SQLite file)
   * @throws Exception if a table cannot be created
   */
  public ModesExample(DataSource dataSource) throws Exception {
    this.dataSource = dataSource;
    this.store = JdbcInboxStore.builder(dataSource).build();
    store.createSchemaIfMissing();
    Ledger.createTable(dataSource);
  }

  /**
   * The lease mode: a committed claim, then the handler's transaction with DONE.
   *
   * @param messages the deliveries, one {@code consume} each
   * @return one outcome per delivery
   */
  public List<Outcome> lease(List<Message> messages) {
    // tag::lease[]
    try (IdempotentConsumer ledger =
        IdempotentConsumer.builder("ledger-lease", store)
            .effect(
                store.transactional(
                    (message, attempt, connection) -> Ledger.insert(connection, message)))
            .build()) {
      return messages.stream().map(ledger::consume).toList();
    }
    // end::lease[]
  }

  /**
   * The one-commit mode: claim, ledger row and DONE in one transaction per message.
   *
   * @param messages the deliveries, one {@code consume} each
   * @return one outcome per delivery
   */
  public List<Outcome> oneCommit(List<Message> messages) {
    // tag::one-commit[]
    try (OneCommitConsumer ledger =
        OneCommitConsumer.builder("ledger-one-commit", store)
            .handler((message, attempt, connection) -> Ledger.insert(connection, message))
            .build()) {
      return messages.stream().map(ledger::consume).toList();
    }
    // end::one-commit[]
  }

  /**
   * The batch mode: the messages' claims in one round trip, one handler call for the new ones.
   *
   * @param messages the deliveries, consumed as one batch
   * @return one outcome per delivery, in the same order
   */
  public List<Outcome> batch(List<Message> messages) {
    // tag::batch[]
    try (BatchConsumer ledger =
        BatchConsumer.builder("ledger-batch", store)
            .handler(
                (batch, connection) -> {
                  for (Message message : batch) {
                    Ledger.insert(connection, message);
                  }
                })
            .build()) {
      return ledger.consume(messages);
    }
    // end::batch[]
  }

  /**
   * The batch mode with a handler that refuses some messages by name: those fail alone (a failed
   * attempt each), the others of the batch are applied in the same call.
   *
   * @param messages the deliveries, consumed as one batch; a zero amount is refused
   * @return one outcome per delivery, in the same order
   */
  public List<Outcome> batchWithRefusals(List<Message> messages) {
    // tag::batch-refusals[]
    try (BatchConsumer ledger =
        BatchConsumer.builder("ledger-batch-checked", store)
            .handler(
                (batch, connection) -> {
                  List<String> refused = new ArrayList<>();
                  for (Message message : batch) {
                    if (Ledger.amountOf(message) <= 0) {
                      refused.add(message.id());
                    } else {
                      Ledger.insert(connection, message);
                    }
                  }
                  if (!refused.isEmpty()) { // rolls back; the named ones fail, the rest re-run
                    throw new BatchItemFailedException(
                        refused, new IllegalArgumentException("amount must be positive"));
                  }
                })
            .build()) {
      return ledger.consume(messages); // one outcome per delivery, same order
    }
    // end::batch-refusals[]
  }

  /**
   * The ledger's row count.
   *
   * @return how many ledger rows were written
   * @throws Exception if the count failed
   */
  public long ledgerRows() throws Exception {
    return Ledger.rows(dataSource);
  }
}
