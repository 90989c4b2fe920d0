package dev.archlab.inbox;

import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.Fingerprint;
import dev.archlab.inbox.internal.Identifiers;
import dev.archlab.inbox.store.ArgumentChecks;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ClaimedEffect;
import dev.archlab.inbox.store.ClaimedRun;
import dev.archlab.inbox.store.InboxStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Wraps a {@link MessageHandler} so that each message's effect runs once per dedup window, however
 * often the broker delivers it. For every delivery it claims the message in the {@link InboxStore}
 * first, runs the handler only if the claim succeeded, then writes the terminal state:
 *
 * <ul>
 *   <li>a redelivery of a finished message → {@link Outcome.Status#DUPLICATE}, handler not run;
 *   <li>a concurrent duplicate while another instance holds the lease → {@link
 *       Outcome.Status#IN_FLIGHT} with a retry-after hint, handler not run;
 *   <li>a message whose owner crashed → taken over once the lease has passed (attempts + 1);
 *   <li>a handler exception → {@link Outcome.Status#FAILED}, retryable after the {@link
 *       RetryPolicy}'s backoff; at the last attempt → {@link Outcome.Status#DEAD} and the {@link
 *       DeadLetterHandler} runs once.
 * </ul>
 *
 * <p>If this instance's lease was taken over while its handler ran, the completion is refused and
 * {@link #consume} throws {@link LeaseLostException}; the other instance's run counts. Thread-safe:
 * one instance serves any number of consuming threads. {@link #close()} stops the heartbeat thread
 * if this consumer created one.
 */
public final class IdempotentConsumer implements AutoCloseable {

  /** Longest consumer name accepted, in UTF-16 characters. */
  public static final int MAX_CONSUMER_NAME_LENGTH = 128;

  private static final System.Logger LOG = System.getLogger(IdempotentConsumer.class.getName());

  private final String name;
  private final InboxStore store;
  private final ClaimedEffect effect;
  private final InboxConfig config;
  private final ScheduledExecutorService heartbeatScheduler;
  private final boolean ownsScheduler;
  private final ConsumeSteps steps;
  private volatile boolean closed;

  private IdempotentConsumer(Builder b) {
    this.name = b.name;
    this.store = b.store;
    this.effect = b.effect != null ? b.effect : handlerEffect(b.store, b.handler);
    this.config = b.config;
    this.steps =
        new ConsumeSteps(
            b.name, b.store, b.config.retryPolicy(), b.listener, b.deadLetterHandler, b.clock);
    if (config.heartbeatInterval().isPresent() && b.heartbeatScheduler == null) {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              runnable -> {
                Thread t = new Thread(runnable, "inbox-heartbeat-" + b.name);
                t.setDaemon(true);
                return t;
              });
      executor.setRemoveOnCancelPolicy(true);
      this.heartbeatScheduler = executor;
      this.ownsScheduler = true;
    } else {
      this.heartbeatScheduler = b.heartbeatScheduler;
      this.ownsScheduler = false;
    }
  }

  /**
   * A builder for a consumer called {@code name} on {@code store}.
   *
   * @param name the logical consumer name, the first half of every record's key
   * @param store where the consumer's records live
   * @return a new builder with the default configuration
   * @throws InvalidConsumerNameException if the name is null, blank, too long, not storable or has
   *     surrounding whitespace
   * @throws InvalidArgumentException if {@code store} is null
   */
  public static Builder builder(String name, InboxStore store) {
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
   * The store that holds the consumer's records.
   *
   * @return the store given to {@link #builder}
   */
  public InboxStore store() {
    return store;
  }

  /**
   * Consumes one delivery: claims it, runs the handler if the claim succeeded and records the
   * result. Expected repeats are outcomes, not exceptions.
   *
   * @param message the delivery
   * @return what the delivery came to; {@link Outcome#shouldAcknowledge()} says whether to
   *     acknowledge it
   * @throws PayloadMismatchException if payload fingerprints are on and this id was first seen with
   *     another payload
   * @throws LeaseLostException if this instance's claim was taken over before it could record the
   *     result
   * @throws StoreUnavailableException if the store could not be reached
   * @throws InvalidArgumentException if {@code message} is null
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public Outcome consume(Message message) {
    Identifiers.requireValue(message, "message");
    if (closed) {
      // Claiming now would strand the message until its lease ends: the heartbeat is gone.
      throw new ConsumerClosedException(name);
    }
    String hash = config.fingerprintPayloads() ? Fingerprint.sha256Hex(message.payload()) : null;
    BeginResult begun =
        store.begin(
            new BeginRequest(
                name, message.id(), config.lease(), config.retryPolicy().maxAttempts(), hash));
    Outcome unclaimed = steps.unclaimed(message, begun);
    return unclaimed != null ? unclaimed : runClaimed(message, begun);
  }

  /**
   * Deletes this consumer's DONE records older than the configured retention, measured in the
   * store's clock. Works after {@link #close()} too: closing stops consuming, not maintenance.
   *
   * @return how many records were deleted
   */
  public long pruneExpired() {
    return steps.pruneExpired(config.dedupWindow().retention());
  }

  private Outcome runClaimed(Message message, BeginResult begun) {
    Claim claim = begun.claim();
    steps.claimed(message, claim);
    RunningAttempt attempt =
        new RunningAttempt(message, claim, Duration.between(begun.storeTime(), claim.leaseUntil()));
    ScheduledFuture<?> heartbeat = startHeartbeat(attempt);
    InboxRecord done;
    try {
      done = effect.runAndComplete(attempt);
    } catch (LeaseLostException lost) {
      attempt.reportLeaseLost(lost);
      throw lost;
    } catch (Exception e) {
      if (attempt.hasHandlerReturned()) {
        // The effect ran but recording DONE failed: not a handler failure. Leave the claim to
        // expire so the crash path retries it, rather than counting an attempt as failed. The
        // rerun may repeat an effect outside the store's transaction: make that observable.
        steps.completionFailed(message, attempt.claim(), e);
        throw e instanceof RuntimeException r
            ? r
            : new InboxException(
                "recording message '" + message.id() + "' as DONE failed: " + e.getMessage(), e);
      }
      // No renewal may land after the failure is recorded: it would replace the retry time with
      // a fresh lease (fail keeps the token and PROCESSING, so a late extension still succeeds).
      attempt.finishAndAwaitRenewal();
      if (attempt.leaseLostReported()) {
        throw attempt.lostLease();
      }
      return steps.recordFailure(message, attempt.claim(), e);
    } finally {
      attempt.finish();
      if (heartbeat != null) {
        heartbeat.cancel(false);
      }
    }
    return steps.applied(attempt.claim(), done);
  }

  private static ClaimedEffect handlerEffect(InboxStore store, MessageHandler handler) {
    return run -> {
      handler.handle(run.message(), run.attempt());
      return store.complete(run.handlerReturned(), run.keptResult());
    };
  }

  private ScheduledFuture<?> startHeartbeat(RunningAttempt attempt) {
    Duration interval = config.heartbeatInterval().orElse(null);
    if (interval == null || heartbeatScheduler == null) {
      return null;
    }
    long nanos = interval.toNanos();
    return heartbeatScheduler.scheduleAtFixedRate(
        attempt::renewFromHeartbeat, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Stops consuming: a later {@link #consume} throws {@link ConsumerClosedException}. Stops the
   * heartbeat thread if this consumer created it. Does not close the store; idempotent.
   */
  @Override
  public void close() {
    closed = true;
    if (ownsScheduler) {
      heartbeatScheduler.shutdownNow();
    }
  }

  /**
   * The attempt handed to the handler; the heartbeat thread renews it too.
   *
   * <p>Renewals and the end of the attempt are ordered by {@link #finished} and {@link #renewing},
   * both changed only under this attempt's lock: a heartbeat tick starts only while the attempt is
   * not finished, and the failure path waits for a tick that had already started ({@link
   * #finishAndAwaitRenewal}). The store calls themselves run outside the lock (see {@link
   * #extend}).
   */
  private final class RunningAttempt implements Attempt, ClaimedRun {
    private final Message message;
    private Claim claim; // guarded by this
    private boolean finished; // guarded by this
    private boolean renewing; // guarded by this: a heartbeat tick is between its check and its end
    private long leaseEndNanos; // guarded by this: System.nanoTime() estimate of the lease end
    private boolean handlerReturned; // guarded by this
    private LeaseLostException lostLease; // guarded by this
    private byte[] result; // guarded by this

    RunningAttempt(Message message, Claim claim, Duration remainingLease) {
      this.message = message;
      this.claim = claim;
      this.leaseEndNanos = System.nanoTime() + saturatedNanos(remainingLease);
    }

    @Override
    public Message message() {
      return message;
    }

    @Override
    public Attempt attempt() {
      return this;
    }

    @Override
    public synchronized Claim handlerReturned() {
      handlerReturned = true;
      finished = true;
      return claim;
    }

    synchronized boolean hasHandlerReturned() {
      return handlerReturned;
    }

    @Override
    public synchronized byte[] keptResult() {
      return result == null ? null : result.clone();
    }

    synchronized void reportLeaseLost(LeaseLostException lost) {
      if (lostLease == null) {
        lostLease = lost;
        steps.emit(InboxEvent.Kind.LEASE_LOST, claim.messageId(), claim.fencingToken(), lost);
      }
    }

    synchronized boolean leaseLostReported() {
      return lostLease != null;
    }

    synchronized LeaseLostException lostLease() {
      return lostLease;
    }

    @Override
    public String consumer() {
      return name;
    }

    @Override
    public synchronized String messageId() {
      return claim.messageId();
    }

    @Override
    public synchronized int number() {
      return claim.fencingToken();
    }

    @Override
    public synchronized boolean isRetry() {
      return claim.fencingToken() > 1;
    }

    @Override
    public synchronized Instant leaseUntil() {
      return claim.leaseUntil();
    }

    @Override
    public Instant extendLease(Duration lease) {
      ArgumentChecks.requirePositive(Identifiers.requireValue(lease, "lease"), "lease");
      try {
        return extend(lease);
      } catch (LeaseLostException lost) {
        reportLeaseLost(lost);
        throw lost;
      }
    }

    /**
     * Extends the lease in the store, deliberately without holding this attempt's lock during the
     * store call: that call may wait for a pooled connection, and the worker thread needs the lock
     * to finish ({@link #handlerReturned}) while it holds a connection of its own (transactional
     * mode). Holding the lock across the call made a heartbeat tick and its worker wait for each
     * other until the pool's connection timeout whenever every connection was held by a running
     * handler (a pool sized to the number of workers).
     */
    private Instant extend(Duration lease) {
      long startedNanos = System.nanoTime();
      Claim extended = store.extend(claim(), lease);
      synchronized (this) {
        // The handler and the heartbeat may extend at once: keep the later lease end. The fencing
        // token never changes within one attempt.
        if (extended.leaseUntil().isAfter(claim.leaseUntil())) {
          claim = extended;
        }
        // The store's "now" was no earlier than the call's start: a conservative lease end.
        long end = startedNanos + saturatedNanos(lease);
        if (end - leaseEndNanos > 0) {
          leaseEndNanos = end;
        }
      }
      steps.emit(
          InboxEvent.Kind.LEASE_EXTENDED, extended.messageId(), extended.fencingToken(), null);
      return extended.leaseUntil();
    }

    @Override
    public synchronized void keepResult(byte[] bytes) {
      result = ConsumeSteps.checkedResult(bytes);
    }

    /** One heartbeat tick: renews the lease unless the attempt has finished. */
    void renewFromHeartbeat() {
      synchronized (this) {
        if (finished) {
          return; // a tick that finds the attempt finished must not extend
        }
        renewing = true;
      }
      try {
        renew();
      } finally {
        synchronized (this) {
          renewing = false;
          notifyAll();
        }
      }
    }

    private void renew() {
      // Not under this attempt's lock (see extend): the worker may finish while this tick runs.
      try {
        extend(config.lease());
      } catch (LeaseLostException lost) {
        synchronized (this) {
          if (finished) {
            // The handler returned meanwhile and its completion (which reports a real loss
            // itself) made the record DONE first: this late tick lost to its own owner.
            return;
          }
          reportLeaseLost(lost);
          finished = true; // stop renewing; the completion will be refused too
        }
        throw lost;
      } catch (RuntimeException e) {
        if (isFinished()) {
          return; // a late tick of an attempt that has ended; nothing to renew any more
        }
        // A transient store failure: the next tick tries again while the lease still runs.
        LOG.log(Level.WARNING, "lease renewal failed for '" + messageId() + "'", e);
      }
    }

    synchronized boolean isFinished() {
      return finished;
    }

    synchronized void finish() {
      finished = true;
    }

    /**
     * Ends the attempt after a handler failure: no heartbeat tick starts any more, and a tick
     * already running is waited for, so that its extension cannot land after the failure is
     * recorded and replace the retry time with a fresh lease.
     *
     * <p>The wait is bounded by the remaining lease (as this instance last extended it, measured on
     * the local monotonic clock): a tick still stuck in the store by then is abandoned with a
     * warning, since the lease is over anyway. The worker holds no store resource while it waits
     * here in the lease mode and in {@code JdbcInboxStore.transactional} (its connection is closed
     * when the handler's exception leaves the effect), so the tick cannot be waiting for the
     * worker. With a caller-managed transaction the caller's connection stays open during the wait;
     * a tick that needs a pooled connection meanwhile delays the failure by at most that bound.
     */
    synchronized void finishAndAwaitRenewal() {
      finished = true;
      boolean interrupted = false;
      long remaining;
      while (renewing && (remaining = leaseEndNanos - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, remaining);
        } catch (InterruptedException e) {
          interrupted = true;
          break;
        }
      }
      if (renewing) {
        LOG.log(
            Level.WARNING,
            "recording the failure of '"
                + claim.messageId()
                + "' without waiting longer for a lease renewal still in the store ("
                + (interrupted ? "interrupted" : "the lease is over")
                + "); that renewal may still move the retry time");
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    synchronized Claim claim() {
      return claim;
    }
  }

  /** {@code d} in nanoseconds, saturated instead of overflowing for absurdly long leases. */
  private static long saturatedNanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 4; // still safe to add to System.nanoTime()
    }
  }

  /** Builds an {@link IdempotentConsumer}. */
  public static final class Builder {
    private final String name;
    private final InboxStore store;
    private MessageHandler handler;
    private ClaimedEffect effect;
    private InboxConfig config = InboxConfig.ofDefaults();
    private InboxListener listener = InboxListener.NOOP;
    private DeadLetterHandler deadLetterHandler = DeadLetterHandler.NONE;
    private ScheduledExecutorService heartbeatScheduler;
    private InstantSource clock = Clock.systemUTC();

    private Builder(String name, InboxStore store) {
      this.name = Identifiers.requireConsumerName(name, MAX_CONSUMER_NAME_LENGTH);
      this.store = Identifiers.requireValue(store, "store");
    }

    /**
     * The business effect. Exactly one of this and {@link #effect} is required.
     *
     * @param handler the handler, run only while this instance holds the claim
     * @return this builder
     */
    public Builder handler(MessageHandler handler) {
      this.handler = handler;
      return this;
    }

    /**
     * Instead of a {@link #handler}: a store-specific way to run the effect and record DONE in one
     * step, such as the JDBC store's transactional mode. Integration SPI; most users call {@link
     * #handler}.
     *
     * @param effect the store-specific effect runner
     * @return this builder
     */
    public Builder effect(ClaimedEffect effect) {
      this.effect = effect;
      return this;
    }

    /**
     * Settings; {@link InboxConfig#ofDefaults()} when not set.
     *
     * @param config the settings
     * @return this builder
     * @throws InvalidArgumentException if {@code config} is null
     */
    public Builder config(InboxConfig config) {
      this.config = Identifiers.requireValue(config, "config");
      return this;
    }

    /**
     * Receives events; none when not set.
     *
     * @param listener the listener, called synchronously
     * @return this builder
     * @throws InvalidArgumentException if {@code listener} is null
     */
    public Builder listener(InboxListener listener) {
      this.listener = Identifiers.requireValue(listener, "listener");
      return this;
    }

    /**
     * Runs once per message parked as DEAD; nothing when not set.
     *
     * @param deadLetterHandler the handler
     * @return this builder
     * @throws InvalidArgumentException if {@code deadLetterHandler} is null
     */
    public Builder deadLetterHandler(DeadLetterHandler deadLetterHandler) {
      this.deadLetterHandler = Identifiers.requireValue(deadLetterHandler, "deadLetterHandler");
      return this;
    }

    /**
     * Runs lease renewals when a heartbeat is configured. When not set, the consumer starts one
     * daemon thread of its own and stops it on {@link IdempotentConsumer#close()}.
     *
     * @param scheduler the scheduler for renewals, not shut down by the consumer; null to use the
     *     consumer's own thread
     * @return this builder
     */
    public Builder heartbeatScheduler(ScheduledExecutorService scheduler) {
      this.heartbeatScheduler = scheduler;
      return this;
    }

    /**
     * The consumer's own clock, used only to time-stamp {@link InboxEvent}s. Leases, retry times
     * and retention are always measured by the store's clock, so a skewed host clock cannot steal a
     * live lease. Default: the system UTC clock.
     *
     * @param clock the clock for event time stamps
     * @return this builder
     * @throws InvalidArgumentException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      return clock((InstantSource) clock);
    }

    /**
     * As {@link #clock(Clock)}, for any {@link InstantSource} (only {@link InstantSource#instant()}
     * is read; no zone is needed).
     *
     * @param clock the source of event time stamps
     * @return this builder
     * @throws InvalidArgumentException if {@code clock} is null
     */
    public Builder clock(InstantSource clock) {
      this.clock = Identifiers.requireValue(clock, "clock");
      return this;
    }

    /**
     * Builds the consumer.
     *
     * @return the consumer, open and ready to {@link IdempotentConsumer#consume}
     * @throws InvalidConfigurationException unless exactly one of {@link #handler} and {@link
     *     #effect} was given
     */
    public IdempotentConsumer build() {
      if ((handler == null) == (effect == null)) {
        throw new InvalidConfigurationException(
            "consumer '"
                + name
                + "' needs exactly one of handler(...) or effect(...) before build(), got "
                + (handler == null ? "neither" : "both"));
      }
      return new IdempotentConsumer(this);
    }
  }
}
