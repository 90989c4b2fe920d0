package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TransactionalHandler;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.jdbc.consumer.TransactionalBatchHandler;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The consumers of the JDBC store: every mode of {@link IdempotentConsumers} and those that write
 * the effect in the store's database transaction. Pick the mode by method:
 *
 * <ul>
 *   <li>{@link #transactional} — the handler writes through Spring's transaction ({@code
 *       JdbcTemplate} …); its writes and DONE commit together. The usual choice in Spring.
 *   <li>{@link #oneCommit} — claim, business writes and DONE in one commit on a connection the
 *       handler is given.
 *   <li>{@link #batch} — many messages per transaction, on a connection the handler is given.
 *   <li>{@link #idempotent} — any effect (an HTTP call, a broker publish), recorded as DONE after
 *       it.
 * </ul>
 *
 * <p>Every consumer built here is closed when the application context closes. Thread-safe.
 */
public final class InboxConsumers extends IdempotentConsumers {

  private final JdbcInboxStore store;
  private final Supplier<PlatformTransactionManager> transactionManager;

  InboxConsumers(
      JdbcInboxStore store,
      InboxProperties properties,
      Supplier<PlatformTransactionManager> transactionManager,
      Supplier<ConsumerObservation> observation) {
    super(store, properties, observation);
    this.store = store;
    this.transactionManager = transactionManager;
  }

  /**
   * The store every consumer here uses.
   *
   * @return the auto-configured (or user-defined) JDBC store
   */
  @Override
  public JdbcInboxStore store() {
    return store;
  }

  // Whether transactional() can be used: the application has exactly one transaction manager.
  boolean hasTransactionManager() {
    return transactionManager.get() != null;
  }

  /**
   * A consumer whose handler runs in a Spring-managed transaction, committed together with DONE;
   * see {@link SpringTransactionalConsumer}.
   *
   * @param name the consumer name
   * @param handler the business effect, written through the Spring transaction (no connection)
   * @return a new consumer, closed with the context
   * @throws InvalidArgumentException if the application has no {@code PlatformTransactionManager}
   */
  public SpringTransactionalConsumer transactional(String name, MessageHandler handler) {
    Objects.requireNonNull(handler, "handler");
    PlatformTransactionManager tm = transactionManager.get();
    if (tm == null) {
      throw new InvalidArgumentException(
          "inbox consumer '"
              + name
              + "': transactional() needs a PlatformTransactionManager bean (Spring Boot defines"
              + " one for a single DataSource with spring-boot-jdbc on the classpath)");
    }
    DataSource dataSource = store.dataSource();
    IdempotentConsumer consumer =
        builder(name)
            .effect(
                store.inCallerTransaction(
                    () -> transactionConnection(name, dataSource),
                    (message, attempt, connection) -> handler.handle(message, attempt)))
            .build();
    return register(
        new SpringTransactionalConsumer(
            name,
            consumer,
            new TransactionTemplate(tm),
            observation(),
            store.dialect().oneWriterAtATime()));
  }

  /**
   * A consumer that claims, runs the handler on the claim's connection and records DONE in one
   * commit; see {@link OneCommitConsumer}. A heartbeat setting is refused (this mode never renews a
   * lease).
   *
   * @param name the consumer name
   * @param handler the business effect, written through the connection it is given
   * @return a new consumer, closed with the context
   */
  public OneCommitConsumer oneCommit(String name, TransactionalHandler handler) {
    OneCommitConsumer.Builder b =
        OneCommitConsumer.builder(name, store).config(config(name)).handler(handler);
    ConsumerObservation o = observation();
    if (o != null) {
      b.listener(o.listener(name));
    }
    return register(b.build());
  }

  /**
   * A consumer of batches: one transaction per batch; see {@link BatchConsumer}.
   *
   * @param name the consumer name
   * @param handler the business effect of a batch, written through the connection it is given
   * @return a new consumer, closed with the context
   */
  public BatchConsumer batch(String name, TransactionalBatchHandler handler) {
    BatchConsumer.Builder b =
        BatchConsumer.builder(name, store).config(config(name)).handler(handler);
    ConsumerObservation o = observation();
    if (o != null) {
      b.listener(o.listener(name));
    }
    return register(b.build());
  }

  // The connection of the Spring transaction consume() runs in. Refuse to run outside one: a
  // connection DataSourceUtils would open for us would commit on its own.
  private static Connection transactionConnection(String name, DataSource dataSource)
      throws SQLException {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalStateException(
          "inbox consumer '" + name + "' ran outside a Spring transaction");
    }
    Connection c = DataSourceUtils.getConnection(dataSource);
    // Inside a transaction this only lowers the holder's reference count; the connection stays
    // bound to the transaction until it ends.
    DataSourceUtils.releaseConnection(c, dataSource);
    return c;
  }
}
