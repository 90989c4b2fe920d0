package dev.archlab.inbox.internal;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.DeadLetterHandler;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The steps every consumer shares once a store has answered: turning a begin that did not claim
 * into an outcome, recording a failed attempt (retry or dead letter), reporting events. Written
 * once here so the lease-mode, one-commit and batch consumers cannot drift apart. Integration SPI
 * for consumers built on an {@link InboxStore}; thread-safe. A listener or dead-letter handler that
 * throws is logged and never fails the step.
 */
public final class ConsumeSteps {

  private static final System.Logger LOG = System.getLogger(ConsumeSteps.class.getName());

  private final String consumer;
  private final InboxStore store;
  private final RetryPolicy retryPolicy;
  private final InboxListener listener;
  private final DeadLetterHandler deadLetterHandler;
  private final InstantSource clock;
  private final AtomicBoolean overrunLogged = new AtomicBoolean();

  /**
   * The steps of the consumer described by {@code settings}, on {@code store}.
   *
   * @param settings the consumer's name, retry policy, listener, dead-letter handler and clock
   * @param store where the consumer's records live
   * @throws NullPointerException if either is null
   */
  public ConsumeSteps(ConsumerSettings settings, InboxStore store) {
    this.consumer = settings.name();
    this.store = Objects.requireNonNull(store, "store");
    this.retryPolicy = settings.config().retryPolicy();
    this.listener = settings.listener();
    this.deadLetterHandler = settings.deadLetterHandler();
    this.clock = settings.clock();
  }

  /**
   * The outcome of a begin that did not claim the message (running the dead-letter path if this
   * begin parked it), or null when it did claim; a takeover or a due retry is reported before
   * returning null.
   *
   * @param message the delivery
   * @param begun the store's answer to its begin
   * @return the outcome to report, or null when the caller owns the message and must run it
   */
  public Outcome unclaimed(Message message, BeginResult begun) {
    InboxRecord record = begun.record();
    switch (begun.kind()) {
      case DUPLICATE:
        emit(InboxEvent.Kind.DUPLICATE, message.id(), record.attempts(), null);
        return Outcome.of(Outcome.Status.DUPLICATE, record);
      case IN_FLIGHT:
        emit(InboxEvent.Kind.IN_FLIGHT, message.id(), record.attempts(), null);
        return Outcome.inFlight(
            message.id(), record.attempts(), begun.retryAfter(), record.leaseUntil());
      case DEAD:
        // Parked earlier: no dead letter now, but metrics see every delivery of a parked message.
        emit(InboxEvent.Kind.DEAD_SEEN, message.id(), record.attempts(), null);
        return Outcome.of(Outcome.Status.DEAD, record);
      case DIED:
        runDeadLetter(message, record);
        emit(InboxEvent.Kind.DEAD, message.id(), record.attempts(), null);
        return Outcome.of(Outcome.Status.DEAD, record);
      case TAKEN_OVER:
        emit(InboxEvent.Kind.TAKEOVER, message.id(), record.attempts(), null);
        return null;
      case RETRIED:
        emit(InboxEvent.Kind.RETRY, message.id(), record.attempts(), null);
        return null;
      case CLAIMED:
        return null;
      default:
        throw new IllegalStateException("unknown begin result " + begun.kind());
    }
  }

  /**
   * The outcome of a repeated delivery within one batch: what a single call for {@code copy} made
   * right after its first copy's call would answer, given that call's outcome. The record is then
   * DONE (DUPLICATE), DEAD (the first copy ran the dead-letter path, so this one does not), or
   * waiting for its retry time or another owner's lease (IN_FLIGHT with the first copy's hint).
   *
   * @param copy the repeated delivery
   * @param first the outcome of the same id's first delivery in the batch
   * @return the outcome to report for {@code copy}; the matching event is emitted
   */
  public Outcome repeated(Message copy, Outcome first) {
    switch (first.status()) {
      case APPLIED, DUPLICATE -> {
        emit(InboxEvent.Kind.DUPLICATE, copy.id(), first.attempts(), null);
        return Outcome.duplicate(copy.id(), first.attempts(), first.storedResult());
      }
      case DEAD -> {
        emit(InboxEvent.Kind.DEAD_SEEN, copy.id(), first.attempts(), null);
        // No throwable (this copy did not fail), but the record's error, as for any DEAD answer.
        return new Outcome(
            Outcome.Status.DEAD,
            copy.id(),
            first.attempts(),
            Duration.ZERO,
            null,
            null,
            null,
            first.lastError());
      }
      case FAILED, IN_FLIGHT -> {
        emit(InboxEvent.Kind.IN_FLIGHT, copy.id(), first.attempts(), null);
        return Outcome.inFlight(copy.id(), first.attempts(), first.retryAfter(), first.retryAt());
      }
      default -> throw new IllegalStateException("unknown outcome " + first.status());
    }
  }

  /**
   * Reports the claim; called just before the handler runs.
   *
   * @param message the delivery
   * @param claim the claim it runs under
   */
  public void claimed(Message message, Claim claim) {
    emit(InboxEvent.Kind.CLAIMED, message.id(), claim.fencingToken(), null);
  }

  /**
   * Reports that the handler returned under {@code claim} but recording DONE failed (not a lost
   * lease): the message will run again once the lease expires, so its effect may repeat.
   *
   * @param message the delivery
   * @param claim the claim the handler ran under
   * @param failure why DONE could not be recorded
   */
  public void completionFailed(Message message, Claim claim, Throwable failure) {
    emit(InboxEvent.Kind.COMPLETION_FAILED, message.id(), claim.fencingToken(), failure);
  }

  /**
   * Reports a DONE record completed under {@code claim} (with the lease end as last extended) and
   * returns its APPLIED outcome. A completion at or after the lease end, by the store's clock that
   * stamped {@code done.updatedAt()}, is reported as {@link InboxEvent.Kind#LEASE_OVERRUN} first,
   * and the first one of this consumer is logged as a warning.
   *
   * @param claim the claim, with its lease end as last extended
   * @param done the DONE record
   * @return the APPLIED outcome
   */
  public Outcome applied(Claim claim, InboxRecord done) {
    // begin takes a lease over once now >= leaseUntil, so the lease end itself is already exposed.
    if (!done.updatedAt().isBefore(claim.leaseUntil())) {
      emit(InboxEvent.Kind.LEASE_OVERRUN, done.messageId(), done.attempts(), null);
      if (overrunLogged.compareAndSet(false, true)) {
        LOG.log(
            Level.WARNING,
            "consumer '"
                + consumer
                + "' recorded message '"
                + done.messageId()
                + "' as DONE "
                + Duration.between(claim.leaseUntil(), done.updatedAt())
                + " after its lease ended; a redelivery in that time could have run the handler"
                + " twice. Use a longer lease or heartbeat(). Logged once per consumer; every"
                + " overrun emits a LEASE_OVERRUN event");
      }
    }
    return applied(done);
  }

  /**
   * Reports a DONE record and returns its APPLIED outcome.
   *
   * @param done the DONE record
   * @return the APPLIED outcome
   */
  public Outcome applied(InboxRecord done) {
    emit(InboxEvent.Kind.APPLIED, done.messageId(), done.attempts(), null);
    return Outcome.of(Outcome.Status.APPLIED, done);
  }

  /**
   * Records that the attempt under {@code claim} failed: with attempts left, the record waits for
   * the backoff delay (FAILED); at the last attempt it is parked DEAD and the dead-letter path runs
   * once (DEAD).
   *
   * @param message the delivery
   * @param claim the claim the attempt ran under
   * @param failure what the handler threw
   * @return the FAILED or DEAD outcome
   * @throws LeaseLostException if the claim is no longer current; reported as LEASE_LOST
   */
  public Outcome recordFailure(Message message, Claim claim, Exception failure) {
    return recordFailure(store, message, claim, failure);
  }

  /**
   * {@link #recordFailure(Message, Claim, Exception)} through {@code through} instead of the
   * consumer's store: the store a {@link ClaimedEffect#deliveryStore} bound to the delivery.
   *
   * @param through the store to record the failure in
   * @param message the delivery
   * @param claim the claim the attempt ran under
   * @param failure what the handler threw
   * @return the FAILED or DEAD outcome
   * @throws LeaseLostException if the claim is no longer current; reported as LEASE_LOST
   */
  public Outcome recordFailure(
      InboxStore through, Message message, Claim claim, Exception failure) {
    Objects.requireNonNull(through, "through");
    String error = describe(failure);
    try {
      if (!retryPolicy.hasAttemptsLeftAfter(claim.fencingToken())) {
        InboxRecord dead = through.markDead(claim, error);
        runDeadLetter(message, dead);
        emit(InboxEvent.Kind.DEAD, message.id(), dead.attempts(), failure);
        return Outcome.dead(dead, failure);
      }
      Duration delay = retryPolicy.delayAfter(claim.fencingToken());
      InboxRecord failed = through.fail(claim, error, delay);
      emit(InboxEvent.Kind.FAILED, message.id(), failed.attempts(), failure);
      return Outcome.failed(message.id(), failed.attempts(), delay, failed.leaseUntil(), failure);
    } catch (LeaseLostException lost) {
      lost.addSuppressed(failure);
      emit(InboxEvent.Kind.LEASE_LOST, message.id(), claim.fencingToken(), lost);
      throw lost;
    }
  }

  /**
   * Runs the dead-letter handler; a failure there is logged, never retried.
   *
   * @param message the delivery that was parked
   * @param record its DEAD record
   */
  public void runDeadLetter(Message message, InboxRecord record) {
    try {
      deadLetterHandler.onDead(message, record);
    } catch (Exception e) {
      // The record is DEAD already; running the dead-letter path again could duplicate it.
      LOG.log(
          Level.ERROR,
          "dead-letter handler failed for message '"
              + message.id()
              + "' of consumer '"
              + consumer
              + "'; the record stays DEAD",
          e);
    }
  }

  /**
   * Reports an event; a listener that throws is logged and ignored.
   *
   * @param kind what happened
   * @param messageId the message, or null for none
   * @param attempts the record's attempts, or 0 when unknown
   * @param error the failure involved, or null
   */
  public void emit(InboxEvent.Kind kind, String messageId, int attempts, Throwable error) {
    emit(new InboxEvent(kind, consumer, messageId, attempts, error, 0, clock.instant()));
  }

  /**
   * Deletes this consumer's DONE records last changed more than {@code retention} ago by the
   * store's clock, reports the prune and returns how many were deleted: {@code pruneExpired()} of
   * every consumer.
   *
   * @param retention how long DONE records are kept
   * @return how many records were deleted
   */
  public long pruneExpired(Duration retention) {
    long deleted = store.prune(consumer, store.currentTime().minus(retention));
    pruned(deleted);
    return deleted;
  }

  /**
   * Reports a prune of {@code count} records.
   *
   * @param count how many were deleted
   */
  public void pruned(long count) {
    emit(new InboxEvent(InboxEvent.Kind.PRUNED, consumer, null, 0, null, count, clock.instant()));
  }

  private void emit(InboxEvent event) {
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "inbox listener failed on " + event.kind() + "; ignored", e);
    }
  }

  /**
   * The text kept as {@code lastError}: exception class and message, bounded.
   *
   * @param t the failure
   * @return its class name and message, at most {@link InboxRecord#MAX_ERROR_LENGTH} characters
   */
  public static String describe(Throwable t) {
    String text = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    return InboxRecord.boundError(text);
  }

  /**
   * A copy of a result to keep, after checking its size.
   *
   * @param result the bytes; null for none
   * @return a copy, or null
   * @throws InvalidArgumentException if {@code result} is over {@link InboxRecord#MAX_RESULT_BYTES}
   */
  public static byte[] checkedResult(byte[] result) {
    ArgumentChecks.requireResultSize(result);
    return result == null ? null : result.clone();
  }
}
