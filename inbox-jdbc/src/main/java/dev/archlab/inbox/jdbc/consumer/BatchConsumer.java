package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.ConsumerBuilder;
import dev.archlab.inbox.ConsumerClosedException;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.ConsumerSettings;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.JdbcInboxStore.BatchCompletion;
import dev.archlab.inbox.jdbc.internal.GuardedConnection;
import dev.archlab.inbox.jdbc.internal.LocalTransaction;
import dev.archlab.inbox.jdbc.internal.StoreParts;
import dev.archlab.inbox.store.BeginResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Consumes a batch of deliveries (as brokers hand them out) with a constant number of round trips
 * on PostgreSQL and MariaDB while the handler succeeds: one to claim every message (on H2 and MySQL
 * the claims go one by one, see {@link JdbcInboxStore#beginBatch}), then one transaction in which
 * the handler writes all effects and all claims are completed by one fenced statement.
 *
 * <p>Each message's outcome is the one a single {@link IdempotentConsumer} with {@link
 * JdbcInboxStore#transactional} would report for it, called in delivery order:
 *
 * <ul>
 *   <li><b>A failing message fails alone.</b> When the handler throws, the transaction is rolled
 *       back and the failing messages are isolated: a {@link BatchItemFailedException} names them
 *       (they record a failed attempt, the rest run again together at once); any other exception
 *       splits the messages in two halves, each run in its own transaction, down to single
 *       messages, as AWS Lambda's bisect-on-error does. Only a message that fails on its own (or is
 *       named) records a failed attempt, with its own error: retry with backoff, DEAD at the last
 *       attempt. Good messages apply with their first run that succeeds.
 *   <li><b>Cost.</b> A batch that succeeds costs one handler transaction. For {@code n} claimed
 *       messages of which {@code k} always fail, bisection runs the handler in at most {@code
 *       min(2n - 1, 1 + 2k⌈log₂ n⌉)} transactions (each failing run of more than one message costs
 *       two more; at most {@code k} runs fail per level of halving); {@code 2n - 1} is also the
 *       bound when failures are not tied to messages (every run fails). A handler that names all
 *       its failing messages costs at most two transactions per batch. Each failed message adds one
 *       short transaction to record its attempt. Handler runs of the same message repeat inside
 *       rolled-back transactions only, so a message's effect still commits at most once.
 *   <li><b>A repeated id</b> within one batch is handed to the handler once, at its first position;
 *       each later copy answers what a single call made right after the first copy's would:
 *       DUPLICATE if it applied, IN_FLIGHT with the backoff as retry hint if it failed (the retry
 *       is not due yet), DEAD if it died (the dead-letter path runs once), IN_FLIGHT if it was in
 *       flight.
 *   <li><b>Lost leases.</b> A message whose lease was taken over while the batch ran is reported
 *       IN_FLIGHT (with the {@link LeaseLostException} as its error) instead of throwing, and the
 *       rest of that run is applied without it.
 * </ul>
 *
 * <p>The handler gets a guarded connection (see {@link TransactionalBatchHandler}): ending the
 * transaction from the handler fails the run like a handler exception. Leases are not renewed while
 * a batch runs: choose a lease longer than the whole call takes, re-runs included. Thread-safe.
 */
public final class BatchConsumer implements AutoCloseable {

  /** How often a run is repeated without messages whose leases were lost, per call. */
  private static final int MAX_LEASE_RERUNS = 2;

  private final ConsumerSettings settings;
  private final String name;
  private final JdbcInboxStore store;
  private final StoreParts parts;
  private final TransactionalBatchHandler handler;
  private final InboxConfig config;
  private final ConsumeSteps steps;
  private volatile boolean closed;

  private BatchConsumer(Builder b, ConsumerSettings settings) {
    this.settings = settings;
    this.name = settings.name();
    this.store = b.store;
    this.parts = StoreParts.of(this.store);
    this.handler = b.handler;
    this.config = settings.config();
    this.steps = new ConsumeSteps(settings, store);
  }

  /**
   * A builder for a consumer called {@code name} on {@code store}.
   *
   * @param name the logical consumer name
   * @param store the JDBC store the batches are claimed in and written through
   * @return a new builder with the default configuration
   */
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
   * Consumes the deliveries; returns one outcome per delivery, in the same order.
   *
   * @throws PayloadMismatchException if fingerprints are on and any id was first seen with another
   *     payload, earlier or in this batch; nothing of the batch was applied
   * @throws dev.archlab.inbox.StoreUnavailableException if the database cannot be reached; runs
   *     that committed before stay committed (their redeliveries are DUPLICATE), the others are
   *     retried once their leases end
   * @throws dev.archlab.inbox.InvalidArgumentException if {@code messages} or one of them is null
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public List<Outcome> consume(List<Message> messages) {
    BatchInput.requireMessages(messages);
    if (closed) {
      throw new ConsumerClosedException(name);
    }
    if (messages.isEmpty()) {
      return List.of();
    }
    BatchInput input = BatchInput.of(settings, messages);
    List<BeginResult> begun = store.beginBatch(input.requests());
    Outcome[] outcomes = new Outcome[messages.size()];
    List<Integer> claimed = new ArrayList<>();
    for (int i : input.firsts()) {
      Outcome unclaimed = steps.unclaimed(messages.get(i), begun.get(i));
      if (unclaimed != null) {
        outcomes[i] = unclaimed;
      } else {
        steps.claimed(messages.get(i), begun.get(i).claim());
        claimed.add(i);
      }
    }
    new Run(messages, begun, outcomes).settle(claimed);
    input.answerRepeats(outcomes, steps);
    return List.copyOf(Arrays.asList(outcomes));
  }

  /** How one handler transaction over a group ended. */
  private record Ran(Exception failure, List<Integer> again) {}

  /** Settles the claimed messages of one call, isolating failures; fills {@code outcomes}. */
  private final class Run {
    private final List<Message> messages;
    private final List<BeginResult> begun;
    private final Outcome[] outcomes;
    private int leaseReruns = MAX_LEASE_RERUNS;

    Run(List<Message> messages, List<BeginResult> begun, Outcome[] outcomes) {
      this.messages = messages;
      this.begun = begun;
      this.outcomes = outcomes;
    }

    /** Runs groups depth first, first half before second, so the handler sees delivery order. */
    void settle(List<Integer> claimed) {
      Deque<List<Integer>> pending = new ArrayDeque<>();
      if (!claimed.isEmpty()) {
        pending.push(List.copyOf(claimed));
      }
      while (!pending.isEmpty()) {
        List<Integer> group = pending.pop();
        Ran ran = runOnce(group);
        if (ran.failure() == null) {
          if (ran.again().isEmpty()) {
            continue;
          }
          if (leaseReruns-- > 0) {
            pending.push(ran.again());
          } else {
            for (int i : ran.again()) {
              // Leases kept being lost; leave these to their new owners.
              outcomes[i] = inFlight(messages.get(i), claimOf(i), null);
            }
          }
          continue;
        }
        FailureIsolation.isolate(
            ran.failure(), group, i -> messages.get(i).id(), false, this::fail, pending);
      }
    }

    private void fail(int i, Exception failure) {
      try {
        outcomes[i] = steps.recordFailure(messages.get(i), claimOf(i), failure);
      } catch (LeaseLostException lost) {
        outcomes[i] = inFlight(messages.get(i), claimOf(i), lost);
      }
    }

    private Claim claimOf(int i) {
      return begun.get(i).claim();
    }

    /**
     * One transaction over {@code group}: the handler, then one fenced completion. Sets the
     * outcomes of a commit and of lost leases; returns the handler's failure, or the messages to
     * run again because others' leases were lost.
     */
    private Ran runOnce(List<Integer> group) {
      List<Message> batch = new ArrayList<>(group.size());
      List<Claim> claims = new ArrayList<>(group.size());
      for (int i : group) {
        batch.add(messages.get(i));
        claims.add(claimOf(i));
      }
      List<BatchCompletion> completions;
      try (Connection c = store.dataSource().getConnection();
          LocalTransaction tx = new LocalTransaction(c)) {
        GuardedConnection guard = GuardedConnection.around(c);
        try {
          handler.handle(List.copyOf(batch), guard.connection());
          guard.throwIfRefused();
        } catch (Exception e) {
          tx.rollback(e);
          return new Ran(e, List.of());
        }
        completions = parts.batches().completeBatchOn(c, parts.jdbc().statementsFor(c), claims);
        if (completions.stream().allMatch(BatchCompletion::succeeded)) {
          tx.commit();
        } else {
          tx.rollback();
        }
      } catch (SQLException e) {
        throw parts.jdbc().translate("batch consume", e);
      }
      boolean allDone = completions.stream().allMatch(BatchCompletion::succeeded);
      List<Integer> again = new ArrayList<>();
      for (int k = 0; k < group.size(); k++) {
        int i = group.get(k);
        BatchCompletion done = completions.get(k);
        if (allDone) {
          // Leases are not renewed during a batch: a completion after the lease end is reported.
          outcomes[i] = steps.applied(claims.get(k), done.record());
        } else if (done.succeeded()) {
          again.add(i); // rolled back with the run; still ours, so run it again
        } else {
          steps.emit(
              InboxEvent.Kind.LEASE_LOST,
              messages.get(i).id(),
              claims.get(k).fencingToken(),
              done.error());
          outcomes[i] = inFlight(messages.get(i), claims.get(k), done.error());
        }
      }
      return new Ran(null, List.copyOf(again));
    }
  }

  private static Outcome inFlight(Message message, Claim claim, Throwable lost) {
    return Outcome.leaseLost(message.id(), claim.fencingToken(), lost);
  }

  /**
   * This consumer as a broker adapter's mode: up to {@code maxBatch} deliveries (a poll's records
   * of one Kafka partition; the deliveries waiting on one RabbitMQ channel) through one {@link
   * #consume} call. A batch is never held back to fill up: what has arrived goes. The dead-letter
   * headers name this consumer.
   *
   * @param maxBatch most deliveries per call, at least 1; a RabbitMQ prefetch must be at least this
   * @return the mode
   * @throws InvalidConfigurationException if {@code maxBatch} is below 1
   */
  public ConsumeMode asMode(int maxBatch) {
    return ConsumeMode.batches(name(), maxBatch, this::consume);
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

  /** Builds a {@link BatchConsumer}. */
  public static final class Builder extends ConsumerBuilder<Builder> {
    private final JdbcInboxStore store;
    private TransactionalBatchHandler handler;

    private Builder(String name, JdbcInboxStore store) {
      super(name);
      this.store = ArgumentChecks.requireValue(store, "store");
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** The business effects of a batch. Required. */
    public Builder handler(TransactionalBatchHandler handler) {
      this.handler = handler;
      return this;
    }

    /**
     * @throws InvalidConfigurationException if no handler was given or the config asks for a
     *     heartbeat (leases are not renewed while a batch runs)
     */
    public BatchConsumer build() {
      if (settings().config().heartbeatInterval().isPresent()) {
        // Refused rather than ignored: a user who asked for renewals would otherwise rely on them.
        throw new InvalidConfigurationException(
            "batch consumer '"
                + name()
                + "' never renews leases, so heartbeat() has no effect here: remove it and choose a"
                + " lease longer than a batch takes");
      }
      if (handler == null) {
        throw new InvalidConfigurationException(
            "batch consumer '" + name() + "' needs a handler: call handler(...) before build()");
      }
      return new BatchConsumer(this, settings());
    }
  }
}
