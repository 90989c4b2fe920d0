package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.StoreUnavailableException;
import java.util.Objects;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An idempotent consumer whose handler runs inside a Spring-managed transaction and whose DONE
 * record is written in that same transaction: the handler's business writes (through {@code
 * JdbcTemplate}, Spring Data JDBC or anything else bound to the transaction's connection) and DONE
 * commit together, in one commit, or not at all. The handler never sees a {@code Connection}.
 *
 * <p>{@link #consume} joins the caller's transaction if one is active (for example inside a
 * {@code @Transactional} method) and starts one otherwise. The claim itself is written and
 * committed on a connection of its own before the handler runs, as with every consumer, so a
 * crashed instance's claim expires and another takes the message over.
 *
 * <p>Any failure rolls the business writes back: a handler exception (the attempt is recorded as
 * failed or DEAD on the store's own connection, and the returned outcome says so), a lost lease or
 * a failed completion (thrown). When {@code consume} joined a caller's transaction, a failure marks
 * it rollback-only, so the caller's commit throws {@code UnexpectedRollbackException} instead of
 * committing a failed attempt's writes. The transaction manager must manage the store's {@code
 * DataSource} (Spring Boot's default {@code DataSourceTransactionManager} does), and each consuming
 * thread holds two pool connections while its handler runs.
 *
 * <p>On a database with one writer at a time (SQLite) the claim and the failed attempt are written
 * in the transaction itself, and the handler's writes are undone to a savepoint taken after the
 * claim. So after a handler exception a transaction that {@code consume} started is committed with
 * only the attempt in it: the attempts count, and a poison message ends DEAD. In a caller's
 * transaction the caller's own writes are in it too, so it is still made rollback-only, and the
 * attempt goes with it. Thread-safe.
 */
public final class SpringTransactionalConsumer implements AutoCloseable {

  private final String name;
  private final IdempotentConsumer consumer;
  private final TransactionTemplate transactions;
  private final ConsumerObservation observation;
  private final boolean attemptWrittenInTransaction;

  /**
   * @param attemptWrittenInTransaction whether the store writes the claim and a failed attempt in
   *     the transaction and undoes only the handler's writes ({@code
   *     JdbcDialect#oneWriterAtATime()}), so that a failed delivery's own transaction must commit
   */
  SpringTransactionalConsumer(
      String name,
      IdempotentConsumer consumer,
      TransactionTemplate transactions,
      ConsumerObservation observation,
      boolean attemptWrittenInTransaction) {
    this.name = name;
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.transactions = Objects.requireNonNull(transactions, "transactions");
    this.observation = observation;
    this.attemptWrittenInTransaction = attemptWrittenInTransaction;
  }

  /**
   * The consumer name.
   *
   * @return the name it was created with
   */
  public String name() {
    return name;
  }

  /**
   * The underlying consumer (configuration, store, prune).
   *
   * @return the idempotent consumer doing the work
   */
  public IdempotentConsumer consumer() {
    return consumer;
  }

  /**
   * Consumes one delivery in the current Spring transaction, or in a new one if none is active.
   * After {@link Outcome.Status#FAILED} or {@link Outcome.Status#DEAD} (the handler threw) and
   * after any exception, the transaction is rolled back or rollback-only (except on SQLite, where a
   * transaction this call started commits the recorded attempt alone; see above); {@link
   * Outcome.Status#DUPLICATE} and {@link Outcome.Status#IN_FLIGHT} ran no handler and leave a
   * caller's transaction as it was.
   *
   * @param message the delivery
   * @return what the delivery came to; see {@link IdempotentConsumer#consume}
   * @throws LeaseLostException if another instance took the message over; nothing committed
   * @throws PayloadMismatchException if fingerprints are on and the payload differs
   * @throws StoreUnavailableException if the store could not be reached
   */
  public Outcome consume(Message message) {
    return observation == null
        ? inTransaction(message)
        : observation.consume(name, message, this::inTransaction);
  }

  private Outcome inTransaction(Message message) {
    return transactions.execute(
        status -> {
          Outcome outcome = consumer.consume(message);
          boolean failed =
              outcome.status() == Outcome.Status.FAILED || outcome.status() == Outcome.Status.DEAD;
          // The failed handler's writes are in this transaction: they must not commit. Unless the
          // store already undid them and wrote the attempt here, in a transaction of our own: a
          // rollback would then forget the attempt, and a poison message would never end DEAD.
          // Duplicates and in-flight answers ran no handler, so a caller's transaction goes on.
          if (failed && !(attemptWrittenInTransaction && status.isNewTransaction())) {
            status.setRollbackOnly();
          }
          return outcome;
        });
  }

  /** Stops consuming (see {@link IdempotentConsumer#close()}); idempotent. */
  @Override
  public void close() {
    consumer.close();
  }
}
