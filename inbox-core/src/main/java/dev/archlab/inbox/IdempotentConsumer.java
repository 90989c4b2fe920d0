package dev.archlab.inbox;

import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.ConsumerSettings;
import dev.archlab.inbox.store.BatchClaims;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ClaimedEffect;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  private static final System.Logger LOG = System.getLogger(IdempotentConsumer.class.getName());

  /** Longest consumer name accepted, in UTF-16 characters. */
  public static final int MAX_CONSUMER_NAME_LENGTH = 128;

  private final ConsumerSettings settings;
  private final String name;
  private final InboxStore store;
  private final ClaimedEffect effect;
  private final InboxConfig config;
  private final ScheduledExecutorService heartbeatScheduler;
  private final boolean ownsScheduler;
  private final ConsumeSteps steps;
  private volatile boolean closed;

  private IdempotentConsumer(Builder b, ConsumerSettings settings) {
    this.settings = settings;
    this.name = settings.name();
    this.store = b.store;
    this.effect = b.effect != null ? b.effect : handlerEffect(b.store, b.handler);
    this.config = settings.config();
    this.steps = new ConsumeSteps(settings, b.store);
    if (config.heartbeatInterval().isPresent() && b.heartbeatScheduler == null) {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              runnable -> {
                Thread t = new Thread(runnable, "inbox-heartbeat-" + name);
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
    return consume(message, ConsumeInterceptor.NONE);
  }

  /** {@link #consume(Message)} with {@code interceptor} around it (see {@link #asMode()}). */
  Outcome consume(Message message, ConsumeInterceptor interceptor) {
    ArgumentChecks.requireValue(message, "message");
    if (closed) {
      // Claiming now would strand the message until its lease ends: the heartbeat is gone.
      throw new ConsumerClosedException(name);
    }
    return ConsumeInterceptor.around(interceptor, message, () -> consumeOne(message));
  }

  private Outcome consumeOne(Message message) {
    InboxStore deliveryStore = effect.deliveryStore(store);
    BeginResult begun = deliveryStore.begin(settings.beginRequest(message));
    Outcome unclaimed = steps.unclaimed(message, begun);
    return unclaimed != null ? unclaimed : runClaimed(message, begun, deliveryStore);
  }

  /**
   * Consumes deliveries in order, as {@link #consume} called once per delivery that stops at the
   * first delivery that does not finish (IN_FLIGHT, or FAILED with attempts left) would: nothing
   * after that one runs, so effects keep delivery order (a Kafka partition's offset order). Returns
   * the outcomes up to and including that delivery (all of them when every one finished).
   *
   * <p>On a store that can claim a batch ({@link BatchClaims}, the JDBC store) the new ids are
   * claimed first, together, with one round trip and one commit; then each delivery runs and is
   * completed on its own, as in {@link #consume}, so a crash repeats at most the effect that was
   * running, as ever. The claims of deliveries that did not run (after one that did not finish, or
   * after an exception) are given back without counting an attempt. A claim that waited in the
   * batch for more than half its lease is given back and claimed again before its handler runs, so
   * no handler starts on a lease about to end. A crash between the batch claim and a delivery's
   * turn leaves that claim PROCESSING until its lease ends, and counts its attempt, as a crash does
   * in the lease mode. On other stores each delivery is claimed at its turn.
   *
   * @param messages the deliveries, in order; may be empty
   * @return the outcomes of a prefix of {@code messages}, in order
   * @throws PayloadMismatchException as {@link #consume}; earlier outcomes are lost with it, and
   *     their deliveries come back DUPLICATE
   * @throws LeaseLostException as {@link #consume}
   * @throws StoreUnavailableException as {@link #consume}
   * @throws InvalidArgumentException if {@code messages} or one of them is null
   * @throws ConsumerClosedException if this consumer was closed; nothing was claimed
   */
  public List<Outcome> consumeInOrder(List<Message> messages) {
    return consumeInOrder(messages, ConsumeInterceptor.NONE);
  }

  /** {@link #consumeInOrder(List)} with {@code interceptor} around each delivery's turn. */
  List<Outcome> consumeInOrder(List<Message> messages, ConsumeInterceptor interceptor) {
    ArgumentChecks.requireValue(messages, "messages");
    for (int i = 0; i < messages.size(); i++) {
      ArgumentChecks.requireValue(messages.get(i), "messages[" + i + "]");
    }
    if (closed) {
      throw new ConsumerClosedException(name);
    }
    InboxStore deliveryStore = effect.deliveryStore(store);
    Map<String, BeginResult> claimed = new HashMap<>();
    long claimedAt = System.nanoTime();
    if (messages.size() > 1 && deliveryStore instanceof BatchClaims batch) {
      Map<String, BeginRequest> distinct = new LinkedHashMap<>();
      for (Message m : messages) {
        distinct.putIfAbsent(m.id(), settings.beginRequest(m));
      }
      for (BeginResult b : batch.claimNew(List.copyOf(distinct.values()))) {
        claimed.put(b.record().messageId(), b);
      }
    }
    List<Outcome> outcomes = new ArrayList<>(messages.size());
    try {
      for (Message m : messages) {
        // The batch claim is taken inside the turn: an interceptor that fails first leaves it
        // in claimed, given back below.
        Outcome outcome =
            ConsumeInterceptor.around(
                interceptor, m, () -> turnOf(m, claimed.remove(m.id()), claimedAt, deliveryStore));
        outcomes.add(outcome);
        if (outcome.status() == Outcome.Status.IN_FLIGHT
            || outcome.status() == Outcome.Status.FAILED) {
          break;
        }
      }
    } finally {
      giveBack(deliveryStore, claimed.values());
    }
    return List.copyOf(outcomes);
  }

  /** One delivery's turn in {@link #consumeInOrder}: {@code pre} is its batch claim, or null. */
  private Outcome turnOf(Message m, BeginResult pre, long claimedAt, InboxStore deliveryStore) {
    if (pre != null && System.nanoTime() - claimedAt > config.lease().toNanos() / 2) {
      ((BatchClaims) deliveryStore).unclaimFirst(List.of(pre.claim()));
      pre = null; // claimed afresh below, with a whole lease
    }
    if (pre != null) {
      return runClaimed(m, pre, deliveryStore);
    }
    BeginResult begun = deliveryStore.begin(settings.beginRequest(m));
    Outcome unclaimed = steps.unclaimed(m, begun);
    return unclaimed != null ? unclaimed : runClaimed(m, begun, deliveryStore);
  }

  /**
   * Gives back the batch's claims whose turn did not come; a failure leaves them to their lease.
   */
  private void giveBack(InboxStore deliveryStore, Collection<BeginResult> unused) {
    if (unused.isEmpty()) {
      return;
    }
    List<Claim> claims = new ArrayList<>();
    for (BeginResult b : unused) {
      claims.add(b.claim());
    }
    try {
      ((BatchClaims) deliveryStore).unclaimFirst(claims);
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "consumer '"
              + name
              + "' could not give back "
              + claims.size()
              + " claim(s) that did not run; they are taken over when their lease ends",
          e);
    }
  }

  /**
   * This consumer as a broker adapter's mode ({@code KafkaInboxLoop}, {@code RabbitInboxConsumer}):
   * each delivery through {@link #consume}; an in-order loop that may hand over several records at
   * once gets {@link #consumeInOrder} (the new ids claimed together, each run and completed alone).
   * Both run a {@link ConsumeInterceptor} given to {@link ConsumeMode#consume(List,
   * ConsumeInterceptor)} around each delivery's turn (its claim, handler and completion).
   *
   * @return the mode
   */
  public ConsumeMode asMode() {
    return new ConsumerMode(this, 1);
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

  private Outcome runClaimed(Message message, BeginResult begun, InboxStore deliveryStore) {
    Claim claim = begun.claim();
    steps.claimed(message, claim);
    RunningAttempt attempt =
        new RunningAttempt(
            name,
            deliveryStore,
            steps,
            config.lease(),
            message,
            claim,
            Duration.between(begun.storeTime(), claim.leaseUntil()));
    // A delivery store bound to the consuming thread's transaction is never used from the
    // heartbeat's thread (see ClaimedEffect#deliveryStore): its claim needs no renewal.
    ScheduledFuture<?> heartbeat = deliveryStore == store ? startHeartbeat(attempt) : null;
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
      return steps.recordFailure(deliveryStore, message, attempt.claim(), e);
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
   * Builds an {@link IdempotentConsumer}: the options every consumer shares (see {@link
   * ConsumerBuilder}), the effect and the heartbeat scheduler.
   */
  public static final class Builder extends ConsumerBuilder<Builder> {
    private final InboxStore store;
    private MessageHandler handler;
    private ClaimedEffect effect;
    private ScheduledExecutorService heartbeatScheduler;

    private Builder(String name, InboxStore store) {
      super(name);
      this.store = ArgumentChecks.requireValue(store, "store");
    }

    @Override
    protected Builder self() {
      return this;
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
                + name()
                + "' needs exactly one of handler(...) or effect(...) before build(), got "
                + (handler == null ? "neither" : "both"));
      }
      return new IdempotentConsumer(this, settings());
    }
  }
}
