package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.ConsumerBuilder;
import dev.archlab.inbox.ConsumerClosedException;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.ConsumerSettings;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TransactionalHandler;
import dev.archlab.inbox.jdbc.dialect.LockTimeoutPlan;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.jdbc.internal.GuardedConnection;
import dev.archlab.inbox.jdbc.internal.LocalTransaction;
import dev.archlab.inbox.jdbc.internal.StoreParts;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Consumes a message whose only effect is in the inbox's own database with one commit: the claim,
 * the handler's business writes and DONE go into a single transaction. A new id costs three
 * statements on PostgreSQL and MariaDB (insert the record DONE, the handler's writes, commit), the
 * same as hand-written SQL would.
 *
 * <ul>
 *   <li>The primary key serialises concurrent duplicates: a second delivery waits for the first
 *       transaction (bounded by the lock timeout, see {@link Builder#lockTimeout}), then reports
 *       DUPLICATE, or IN_FLIGHT if the wait timed out.
 *   <li>A crash anywhere before the commit rolls everything back, the claim included, so a
 *       redelivery applies at once: no lease has to run out first.
 *   <li>A handler exception rolls the transaction back; the failure is then recorded in a short
 *       transaction of its own (attempts, retry time, last error) so retries back off and a poison
 *       message still ends DEAD with its dead-letter path run once.
 *   <li>The handler gets a guarded view of the connection: {@code commit()}, {@code rollback()},
 *       {@code setAutoCommit}, {@code close()} and {@code abort} throw {@link
 *       IllegalStateException} and fail the attempt like any handler exception (even if the handler
 *       catches the refusal); savepoints are allowed.
 * </ul>
 *
 * <p>Choose it over the lease mode ({@link JdbcInboxStore#transactional}) when the handler only
 * writes to this database and runs briefly: it saves a commit per message. Keep the lease mode for
 * effects outside the database, for handlers that run long (a transaction holds its row locks that
 * long), and when operators need to see messages in progress.
 *
 * <p>Limit: a message that kills the process (not an exception: the JVM dies) leaves no trace, so
 * its attempts are never counted and it is redelivered until the broker gives up. If a handler can
 * crash the process, use the lease mode, whose committed claim counts every crash and parks the
 * message DEAD at the maximum. Thread-safe.
 */
public final class OneCommitConsumer implements AutoCloseable {

  /** Longest {@link Builder#lockTimeout}: every database's setting holds it. */
  private static final Duration MAX_LOCK_TIMEOUT = Duration.ofDays(1);

  private final ConsumerSettings settings;
  private final String name;
  private final JdbcInboxStore store;
  private final StoreParts parts;
  private final TransactionalHandler handler;
  private final InboxConfig config;
  private final Duration lockTimeout;
  private final ConsumeSteps steps;
  private final OneCommitBatch batches;
  private volatile boolean closed;

  private OneCommitConsumer(Builder b, ConsumerSettings settings) {
    this.settings = settings;
    this.name = settings.name();
    this.store = b.store;
    this.parts = StoreParts.of(this.store);
    this.handler = b.handler;
    this.config = settings.config();
    this.lockTimeout = b.lockTimeout;
    this.steps = new ConsumeSteps(settings, store);
    this.batches =
        new OneCommitBatch(
            settings,
            store,
            steps,
            lockTimeout,
            b.batchHandler != null
                ? OneCommitBatch.Effects.wholeBatch(b.batchHandler)
                : OneCommitBatch.Effects.perMessage(b.handler));
  }

  /** A builder for a consumer called {@code name} on {@code store}. */
  public static Builder builder(String name, JdbcInboxStore store) {
    return new Builder(name, store);
  }

  /**
   * The logical consumer name.
   *
   * @return the name given to {@link #builder}, already validated
   */
  public String name() {
    return name;
  }

  /**
   * The consumer's settings.
   *
   * @return the configuration it was built with
   */
  public InboxConfig config() {
    return config;
  }

  /**
   * Consumes one delivery in a single transaction.
   *
   * @throws dev.archlab.inbox.PayloadMismatchException if fingerprints are on and the id was first
   *     seen with another payload
   * @throws dev.archlab.inbox.StoreUnavailableException if the database cannot be reached
   * @throws dev.archlab.inbox.InvalidArgumentException if {@code message} is null
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public Outcome consume(Message message) {
    ArgumentChecks.requireValue(message, "message");
    if (closed) {
      throw new ConsumerClosedException(name);
    }
    if (handler == null) {
      return batches.consume(List.of(message), false, ConsumeInterceptor.NONE).get(0);
    }
    BeginRequest request = settings.beginRequest(message);
    Failure failure = new Failure();
    try (Connection c = store.dataSource().getConnection();
        LocalTransaction tx = new LocalTransaction(c)) {
      Outcome outcome = inTransaction(tx, message, request, failure);
      if (outcome != null) {
        return outcome;
      }
    } catch (SQLException e) {
      throw parts.jdbc().translate("one-commit consume", e);
    }
    // The handler failed and everything it did, the claim included, is rolled back. Record the
    // attempt in a short transaction of its own, as the lease mode would: claim, then fail.
    BeginResult again = store.begin(request);
    if (!again.claimed()) {
      return steps.unclaimed(message, again);
    }
    return steps.recordFailure(message, again.claim(), failure.exception);
  }

  /**
   * Consumes a batch of deliveries in one transaction: the new ids are inserted DONE together (one
   * multi-row statement on PostgreSQL, MariaDB and SQLite; one insert per id on MySQL and H2), the
   * handler runs for each message this call owns, in delivery order (or the batch handler once with
   * all of them), and one commit makes the records and the business writes durable together.
   * Duplicates, messages in flight elsewhere and DEAD ones never reach the handler.
   *
   * <p>Each delivery's outcome is the one {@link #consume(Message)} would answer for it, called
   * once per delivery in delivery order:
   *
   * <ul>
   *   <li><b>A failing message fails alone.</b> The transaction is rolled back; the failing message
   *       (the one whose handler threw, the ones a batch handler names in a {@link
   *       BatchItemFailedException}, or the one bisection finds) records its failed attempt in a
   *       short transaction of its own (retry with backoff; DEAD and the dead-letter path once at
   *       the last attempt), and the others run again together in a new transaction. Their handlers
   *       may so run more than once, always in rolled-back transactions: a message's effect still
   *       commits at most once.
   *   <li><b>A duplicate being inserted by another transaction</b> waits for it up to the lock
   *       timeout, as a single call does; past it the batch is rolled back and its messages go one
   *       per transaction, so only the held one answers IN_FLIGHT. A deadlock while claiming does
   *       the same. Claims are inserted in id order, so batches over the same ids cannot deadlock
   *       on the inbox's rows.
   *   <li><b>A repeated id</b> within the batch runs once, at its first position; each later copy
   *       answers what a single call right after the first copy's would (DUPLICATE after APPLIED,
   *       IN_FLIGHT after FAILED, DEAD after DEAD, without running the dead-letter path again).
   * </ul>
   *
   * <p>A crash before the commit leaves nothing: no effect, no record, so every message of the
   * batch applies at once on redelivery. Cost for {@code n} new ids on PostgreSQL: one claim
   * statement, the handler's writes and one commit, against {@code 2n + 1} round trips when
   * consumed one by one.
   *
   * @param messages the deliveries, in delivery order; may be empty
   * @return one outcome per delivery, in the same order
   * @throws dev.archlab.inbox.PayloadMismatchException if fingerprints are on and an id was first
   *     seen with another payload, earlier or in this batch; nothing of the batch was applied
   * @throws dev.archlab.inbox.StoreUnavailableException if the database cannot be reached;
   *     transactions that committed before stay committed (their redeliveries are DUPLICATE)
   * @throws dev.archlab.inbox.InvalidArgumentException if {@code messages} or one of them is null
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public List<Outcome> consumeBatch(List<Message> messages) {
    return consumeBatch(messages, false, ConsumeInterceptor.NONE);
  }

  /**
   * {@link #consumeBatch(List)} for a consumer that must apply messages in delivery order, such as
   * a Kafka partition: nothing after the first delivery that does not finish (IN_FLIGHT, or FAILED
   * with attempts left) is consumed, just as a loop of single calls that stops there would leave
   * it, so no later message's effect commits before that one's. The outcomes returned are those of
   * the deliveries up to and including that one (all of them when every one finished); the rest
   * were not touched and are to be delivered again.
   *
   * @param messages the deliveries, in delivery order; may be empty
   * @return the outcomes of a prefix of {@code messages}, in order: every one of them if all
   *     finished, else up to and including the first that did not
   * @throws dev.archlab.inbox.PayloadMismatchException as {@link #consumeBatch(List)}
   * @throws dev.archlab.inbox.StoreUnavailableException as {@link #consumeBatch(List)}
   * @throws dev.archlab.inbox.InvalidArgumentException as {@link #consumeBatch(List)}
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public List<Outcome> consumeInOrder(List<Message> messages) {
    return consumeBatch(messages, true, ConsumeInterceptor.NONE);
  }

  /** A batch call; a per-message handler runs in {@code interceptor}'s scope of its message. */
  List<Outcome> consumeBatch(
      List<Message> messages, boolean inOrder, ConsumeInterceptor interceptor) {
    BatchInput.requireMessages(messages);
    if (closed) {
      throw new ConsumerClosedException(name);
    }
    if (messages.isEmpty()) {
      return List.of();
    }
    if (messages.size() == 1 && handler != null) {
      return List.of(consume(messages.get(0)));
    }
    return batches.consume(messages, inOrder, interceptor);
  }

  /** Carries a handler failure out of the transaction. */
  private static final class Failure {
    Exception exception;
  }

  /** Returns the outcome, or null after a handler failure (left in {@code failure}). */
  private Outcome inTransaction(
      LocalTransaction tx, Message message, BeginRequest request, Failure failure)
      throws SQLException {
    Connection c = tx.connection();
    Statements s = parts.jdbc().statementsFor(c);
    InboxRecord fresh;
    BeginResult begun = null;
    try {
      LockTimeoutPlan plan = lockTimeout == null ? null : s.dialect.claimLockTimeout(lockTimeout);
      if (plan != null) {
        plan.runBefore(c);
      }
      try {
        // A new id, the common case: insert it DONE straight away. Nobody sees that before the
        // commit that also carries the business writes, and a rollback takes it back; meanwhile
        // the key's lock keeps concurrent duplicates waiting. One statement instead of claim +
        // DONE.
        fresh = parts.rows().insertDoneOn(c, s, request, plan == null ? "" : plan.insertPrefix());
        if (fresh == null) {
          begun = parts.rows().beginOn(c, s, request, false);
        }
      } catch (SQLException | RuntimeException e) {
        if (plan != null) {
          plan.restoreAfterFailure(c, e);
        }
        throw e;
      }
      if (plan != null) {
        plan.runAfter(c);
      }
    } catch (SQLException e) {
      tx.rollback(e);
      if (s.dialect.classify(e) == SqlErrorKind.LOCK_TIMEOUT) {
        // Another transaction holds this message and is still running: redeliver later.
        steps.emit(InboxEvent.Kind.IN_FLIGHT, message.id(), 0, null);
        return Outcome.inFlight(
            message.id(),
            0,
            lockTimeout != null ? lockTimeout : OneCommitBatch.IN_FLIGHT_RETRY_AFTER,
            null);
      }
      throw e;
    } catch (RuntimeException e) {
      tx.rollback(e);
      throw e;
    }
    if (fresh != null) {
      Claim claim = new Claim(name, message.id(), 1, fresh.createdAt().plus(config.lease()));
      return runClaimed(tx, message, claim, fresh, failure);
    }
    // Whatever begin decided is committed: a DIED record must stay DEAD; the rest wrote nothing.
    if (!begun.claimed()) {
      tx.commit();
      return steps.unclaimed(message, begun);
    }
    if (begun.kind() != BeginResult.Kind.CLAIMED) {
      steps.unclaimed(message, begun); // reports the takeover or the due retry
    }
    return runClaimed(tx, message, begun.claim(), null, failure);
  }

  /**
   * Runs the handler under {@code claim} and commits. {@code insertedDone} is the DONE record this
   * transaction inserted for a new id, or null when an existing record was claimed (PROCESSING) and
   * still has to be completed.
   */
  private Outcome runClaimed(
      LocalTransaction tx, Message message, Claim claim, InboxRecord insertedDone, Failure failure)
      throws SQLException {
    Connection c = tx.connection();
    steps.claimed(message, claim);
    OneCommitAttempt attempt = new OneCommitAttempt(store, c, message, claim, insertedDone);
    GuardedConnection guard = GuardedConnection.around(c);
    try {
      handler.handle(message, attempt, guard.connection());
      guard.throwIfRefused();
    } catch (Exception e) {
      tx.rollback(e);
      failure.exception = e;
      return null;
    }
    InboxRecord done;
    try {
      done = attempt.complete();
      tx.commit();
    } catch (SQLException | RuntimeException e) {
      tx.rollback(e);
      throw e;
    }
    return steps.applied(done);
  }

  /**
   * This consumer as a broker adapter's mode ({@code KafkaInboxLoop}, {@code RabbitInboxConsumer}):
   * each delivery through {@link #consume}, the effect and DONE in one transaction. A loop that may
   * hand over several deliveries at once gets one-commit batches: a Kafka partition's records
   * through {@link #consumeInOrder}, a RabbitMQ channel's deliveries through {@link #consumeBatch}.
   *
   * <p>With an interceptor ({@link ConsumeMode#consume(List, ConsumeInterceptor)}, a tracing
   * adapter's), a call of one delivery runs inside {@link ConsumeInterceptor#intercept}; in a batch
   * call, each call of the {@link Builder#handler} runs inside the interceptor's {@link
   * ConsumeInterceptor#handlerScope} of its message, so the message's span is current while its
   * handler runs. A {@link Builder#batchHandler}, called once for all the messages, runs inside no
   * message's scope.
   *
   * @return the mode
   */
  public ConsumeMode asMode() {
    return new OneCommitMode(this, 1, false);
  }

  /**
   * Deletes this consumer's DONE records older than the configured retention, measured in the
   * database's clock, as {@link IdempotentConsumer#pruneExpired()} does. Works after {@link
   * #close()} too.
   *
   * @return how many records were deleted
   */
  public long pruneExpired() {
    return steps.pruneExpired(config.dedupWindow().retention());
  }

  /**
   * Stops consuming: a later {@code consume} throws {@link ConsumerClosedException} before touching
   * the database. Holds no thread or connection of its own, so there is nothing else to release; it
   * exists so that every consumer has the same lifecycle. Does not close the store; idempotent.
   */
  @Override
  public void close() {
    closed = true;
  }

  /** Builds a {@link OneCommitConsumer}. */
  public static final class Builder extends ConsumerBuilder<Builder> {
    private final JdbcInboxStore store;
    private TransactionalHandler handler;
    private TransactionalBatchHandler batchHandler;
    private Duration lockTimeout;

    private Builder(String name, JdbcInboxStore store) {
      super(name);
      this.store = ArgumentChecks.requireValue(store, "store");
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * The business effect of one message, written through the given connection. Required, unless a
     * {@link #batchHandler} is given instead. A batch ({@link #consumeBatch(List)}) calls it once
     * per message it owns, in delivery order, in the batch's transaction.
     */
    public Builder handler(TransactionalHandler handler) {
      this.handler = handler;
      return this;
    }

    /**
     * The business effects of the messages a transaction owns, written through the given connection
     * in one call (a JDBC batch insert is the usual body): what makes {@link #consumeBatch(List)}
     * cost a constant number of round trips per batch. Instead of {@link #handler}; a single
     * delivery is handed over as a list of one. A failure should name its messages with {@link
     * BatchItemFailedException}; any other exception makes the consumer run the two halves apart,
     * down to single messages, to find the failing ones.
     */
    public Builder batchHandler(TransactionalBatchHandler batchHandler) {
      this.batchHandler = batchHandler;
      return this;
    }

    /**
     * Bounds how long a delivery's claim waits for a concurrent duplicate's transaction before
     * reporting IN_FLIGHT (retry after this long); at most one day. Each database does it its own
     * way, and the connection's settings are the same afterwards:
     *
     * <ul>
     *   <li>PostgreSQL: {@code SET LOCAL lock_timeout} (one statement more per message), which
     *       lasts for the whole transaction, so it bounds the handler's lock waits too;
     *   <li>MariaDB: {@code SET STATEMENT innodb_lock_wait_timeout = N FOR} the claim's insert (no
     *       statement more), in whole seconds rounded up;
     *   <li>MySQL 8: the session's {@code innodb_lock_wait_timeout} is saved, set for the claim and
     *       put back after it (two statements more), in whole seconds rounded up;
     *   <li>H2: the session's {@code LOCK_TIMEOUT} is saved, set for the claim and put back after
     *       it (three statements more).
     * </ul>
     *
     * <p>A dialect that cannot bound the wait refuses the setting with {@link
     * InvalidConfigurationException}: at {@link #build()} if the store was given that dialect,
     * otherwise at the first delivery after it was detected.
     *
     * <p>Default: none, so a duplicate waits as any writer on the connection does, up to the
     * connection's own limit ({@code lock_timeout} on PostgreSQL, unlimited unless set; {@code
     * innodb_lock_wait_timeout} on MySQL/MariaDB, 50 s by default; {@code LOCK_TIMEOUT} on H2).
     * Setting that limit on the pool's connections (for example HikariCP's {@code connectionInitSql
     * = "SET lock_timeout = '5s'"}) bounds the wait at no cost per message; a wait cut short by it
     * also reports IN_FLIGHT, with a retry hint of one second.
     */
    public Builder lockTimeout(Duration lockTimeout) {
      this.lockTimeout = ArgumentChecks.requireValue(lockTimeout, "lockTimeout");
      return this;
    }

    /**
     * @throws InvalidConfigurationException if neither or both handlers were given, the config asks
     *     for a heartbeat (this mode never renews a lease), the lock timeout is not positive or
     *     longer than a day, or the store's configured dialect cannot bound it
     */
    public OneCommitConsumer build() {
      if (settings().config().heartbeatInterval().isPresent()) {
        // Refused rather than ignored: a user who asked for renewals would otherwise rely on them.
        throw new InvalidConfigurationException(
            "one-commit consumer '"
                + name()
                + "' never renews leases, so heartbeat() has no effect here: remove it from the"
                + " InboxConfig");
      }
      if ((handler == null) == (batchHandler == null)) {
        throw new InvalidConfigurationException(
            "one-commit consumer '"
                + name()
                + (handler == null
                    ? "' needs a handler: call handler(...) or batchHandler(...) before build()"
                    : "' takes handler(...) or batchHandler(...), not both"));
      }
      if (lockTimeout != null) {
        if (lockTimeout.isNegative()
            || lockTimeout.isZero()
            || lockTimeout.compareTo(MAX_LOCK_TIMEOUT) > 0) {
          throw new InvalidConfigurationException(
              "lockTimeout must be a positive duration of at most "
                  + MAX_LOCK_TIMEOUT
                  + ", was "
                  + lockTimeout);
        }
        if (StoreParts.of(store).jdbc().configuredDialect() != null) {
          // Refuses early if the configured dialect cannot bound the claim's lock wait.
          StoreParts.of(store).jdbc().configuredDialect().claimLockTimeout(lockTimeout);
        }
      }
      return new OneCommitConsumer(this, settings());
    }
  }
}
