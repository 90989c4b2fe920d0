package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.ConsumerClosedException;
import dev.archlab.inbox.DeadLetterHandler;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.Fingerprint;
import dev.archlab.inbox.internal.Identifiers;
import dev.archlab.inbox.jdbc.JdbcInboxStore.BatchCompletion;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Consumes a batch of deliveries (as brokers hand them out) with a constant number of round trips
 * on PostgreSQL and MariaDB: one to claim every message (on H2 and MySQL the claims go one by one,
 * see {@link JdbcInboxStore#beginBatch}), then one transaction in which the handler writes all
 * effects and all claims are completed by one fenced statement. Each message's outcome is the one a
 * single {@link IdempotentConsumer} with {@link JdbcInboxStore#transactional} would report, except
 * that a message whose lease was taken over while the batch ran is reported IN_FLIGHT (with the
 * {@link LeaseLostException} as its error) instead of throwing, and the rest of the batch is
 * applied without it.
 *
 * <p>If the handler throws, nothing of the batch commits and every claimed message records a failed
 * attempt (retry with backoff, DEAD at the last attempt). Leases are not renewed while a batch
 * runs: choose a lease longer than a batch takes. Thread-safe.
 */
public final class BatchConsumer implements AutoCloseable {

  /** How often the batch is re-run without messages whose leases were lost. */
  private static final int MAX_ROUNDS = 3;

  private final String name;
  private final JdbcInboxStore store;
  private final TransactionalBatchHandler handler;
  private final InboxConfig config;
  private final ConsumeSteps steps;
  private volatile boolean closed;

  private BatchConsumer(Builder b) {
    this.name = b.name;
    this.store = b.store;
    this.handler = b.handler;
    this.config = b.config;
    this.steps =
        new ConsumeSteps(
            name, store, config.retryPolicy(), b.listener, b.deadLetterHandler, b.clock);
  }

  public static Builder builder(String name, JdbcInboxStore store) {
    return new Builder(name, store);
  }

  /**
   * Consumes the deliveries; returns one outcome per delivery, in the same order.
   *
   * @throws dev.archlab.inbox.PayloadMismatchException if fingerprints are on and any id was first
   *     seen with another payload; nothing of the batch was applied
   * @throws dev.archlab.inbox.StoreUnavailableException if the database cannot be reached
   * @throws dev.archlab.inbox.InvalidArgumentException if {@code messages} or one of them is null
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public List<Outcome> consume(List<Message> messages) {
    Identifiers.requireValue(messages, "messages");
    for (int i = 0; i < messages.size(); i++) {
      Identifiers.requireValue(messages.get(i), "messages[" + i + "]");
    }
    if (closed) {
      throw new ConsumerClosedException(name);
    }
    if (messages.isEmpty()) {
      return List.of();
    }
    List<BeginRequest> requests = new ArrayList<>(messages.size());
    for (Message m : messages) {
      String hash = config.fingerprintPayloads() ? Fingerprint.sha256Hex(m.payload()) : null;
      requests.add(
          new BeginRequest(name, m.id(), config.lease(), config.retryPolicy().maxAttempts(), hash));
    }
    List<BeginResult> begun = store.beginBatch(requests);
    Outcome[] outcomes = new Outcome[messages.size()];
    List<Integer> claimed = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      Outcome unclaimed = steps.unclaimed(messages.get(i), begun.get(i));
      if (unclaimed != null) {
        outcomes[i] = unclaimed;
      } else {
        steps.claimed(messages.get(i), begun.get(i).claim());
        claimed.add(i);
      }
    }
    for (int round = 0; round < MAX_ROUNDS && !claimed.isEmpty(); round++) {
      claimed = runRound(messages, begun, claimed, outcomes);
    }
    for (int i : claimed) {
      // Leases kept being lost; leave these to their new owners.
      outcomes[i] = inFlight(messages.get(i), begun.get(i).claim(), null);
    }
    return List.copyOf(Arrays.asList(outcomes));
  }

  /** One transaction over the claimed messages; returns those to try again without the lost. */
  private List<Integer> runRound(
      List<Message> messages, List<BeginResult> begun, List<Integer> claimed, Outcome[] outcomes) {
    List<Message> batch = new ArrayList<>(claimed.size());
    List<Claim> claims = new ArrayList<>(claimed.size());
    for (int i : claimed) {
      batch.add(messages.get(i));
      claims.add(begun.get(i).claim());
    }
    Exception failure = null;
    List<BatchCompletion> completions = null;
    try (Connection c = store.dataSource().getConnection();
        LocalTransaction tx = new LocalTransaction(c)) {
      try {
        handler.handle(List.copyOf(batch), c);
      } catch (Exception e) {
        tx.rollback(e);
        failure = e;
      }
      if (failure == null) {
        completions = store.completeBatchOn(c, claims);
        if (completions.stream().allMatch(BatchCompletion::succeeded)) {
          tx.commit();
        } else {
          tx.rollback();
        }
      }
    } catch (SQLException e) {
      throw store.translate("batch consume", e);
    }
    if (failure != null) {
      for (int k = 0; k < claimed.size(); k++) {
        int i = claimed.get(k);
        try {
          outcomes[i] = steps.recordFailure(messages.get(i), claims.get(k), failure);
        } catch (LeaseLostException lost) {
          outcomes[i] = inFlight(messages.get(i), claims.get(k), lost);
        }
      }
      return List.of();
    }
    boolean allDone = completions.stream().allMatch(BatchCompletion::succeeded);
    List<Integer> again = new ArrayList<>();
    for (int k = 0; k < claimed.size(); k++) {
      int i = claimed.get(k);
      BatchCompletion done = completions.get(k);
      if (allDone) {
        outcomes[i] = steps.applied(done.record());
      } else if (done.succeeded()) {
        again.add(i); // rolled back with the batch; still ours, so run it again
      } else {
        steps.emit(
            InboxEvent.Kind.LEASE_LOST,
            messages.get(i).id(),
            claims.get(k).fencingToken(),
            done.error());
        outcomes[i] = inFlight(messages.get(i), claims.get(k), done.error());
      }
    }
    return again;
  }

  private static Outcome inFlight(Message message, Claim claim, Throwable lost) {
    return new Outcome(
        Outcome.Status.IN_FLIGHT,
        message.id(),
        claim.fencingToken(),
        Duration.ZERO,
        null,
        lost,
        null);
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
  public static final class Builder {
    private final String name;
    private final JdbcInboxStore store;
    private TransactionalBatchHandler handler;
    private InboxConfig config = InboxConfig.ofDefaults();
    private InboxListener listener = InboxListener.NOOP;
    private DeadLetterHandler deadLetterHandler = DeadLetterHandler.NONE;
    private Clock clock = Clock.systemUTC();

    private Builder(String name, JdbcInboxStore store) {
      this.name =
          Identifiers.requireConsumerName(name, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
      this.store = Identifiers.requireValue(store, "store");
    }

    /** The business effects of a batch. Required. */
    public Builder handler(TransactionalBatchHandler handler) {
      this.handler = handler;
      return this;
    }

    public Builder config(InboxConfig config) {
      this.config = Identifiers.requireValue(config, "config");
      return this;
    }

    public Builder listener(InboxListener listener) {
      this.listener = Identifiers.requireValue(listener, "listener");
      return this;
    }

    public Builder deadLetterHandler(DeadLetterHandler deadLetterHandler) {
      this.deadLetterHandler = Identifiers.requireValue(deadLetterHandler, "deadLetterHandler");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Identifiers.requireValue(clock, "clock");
      return this;
    }

    /**
     * @throws InvalidConfigurationException if no handler was given or the config asks for a
     *     heartbeat (leases are not renewed while a batch runs)
     */
    public BatchConsumer build() {
      if (config.heartbeatInterval().isPresent()) {
        // Refused rather than ignored: a user who asked for renewals would otherwise rely on them.
        throw new InvalidConfigurationException(
            "batch consumer '"
                + name
                + "' never renews leases, so heartbeat() has no effect here: remove it and choose a lease longer than a batch takes");
      }
      if (handler == null) {
        throw new InvalidConfigurationException(
            "batch consumer '" + name + "' needs a handler: call handler(...) before build()");
      }
      return new BatchConsumer(this);
    }
  }
}
