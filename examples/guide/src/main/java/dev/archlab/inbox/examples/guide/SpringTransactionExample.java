package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC guide's Spring example without Spring Boot: the ledger row and DONE are written on the
 * connection of a transaction Spring manages ({@code inCallerTransaction}), so they commit or roll
 * back with everything else the caller's transaction does.
 */
public final class SpringTransactionExample implements AutoCloseable {

  private final TransactionTemplate transactions;
  private final IdempotentConsumer payments;

  /**
   * Creates the inbox and ledger tables and the consumer.
   *
   * @param dataSource the database (the guide's test uses H2)
   * @throws Exception if a table cannot be created
   */
  public SpringTransactionExample(DataSource dataSource) throws Exception {
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).build();
    store.createSchemaIfMissing();
    Ledger.createTable(dataSource);
    // tag::spring-transaction[]
    transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    payments =
        IdempotentConsumer.builder("payments", store)
            .effect(
                store.inCallerTransaction(
                    () -> DataSourceUtils.getConnection(dataSource), // the transaction's connection
                    (message, attempt, connection) -> Ledger.insert(connection, message)))
            .build();
    // end::spring-transaction[]
  }

  /**
   * Consumes one delivery inside a Spring transaction; an exception from {@code consume} rolls it
   * back.
   *
   * @param message the delivery
   * @return what consuming it came to
   */
  public Outcome consume(Message message) {
    // tag::spring-consume[]
    return transactions.execute(status -> payments.consume(message)); // throws: rolled back
    // end::spring-consume[]
  }

  @Override
  public void close() {
    payments.close();
  }
}
