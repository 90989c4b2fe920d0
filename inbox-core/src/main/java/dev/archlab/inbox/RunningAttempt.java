package dev.archlab.inbox;

import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.store.ClaimedRun;
import dev.archlab.inbox.store.InboxStore;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The attempt handed to the handler; the heartbeat thread renews it too.
 *
 * <p>Renewals and the end of the attempt are ordered by {@link #finished} and {@link #renewing},
 * both changed only under this attempt's lock: a heartbeat tick starts only while the attempt is
 * not finished, and the failure path waits for a tick that had already started ({@link
 * #finishAndAwaitRenewal}). The store calls themselves run outside the lock (see {@link #extend}).
 */
final class RunningAttempt implements Attempt, ClaimedRun {
  // Logged under the consumer's name: operators configure logging for the consumer, not for this.
  private static final System.Logger LOG = System.getLogger(IdempotentConsumer.class.getName());

  private final String consumer;
  private final InboxStore store;
  private final ConsumeSteps steps;
  private final Duration renewalLease;
  private final Message message;
  private Claim claim; // guarded by this
  private boolean finished; // guarded by this
  private boolean renewing; // guarded by this: a heartbeat tick is between its check and its end
  private long leaseEndNanos; // guarded by this: System.nanoTime() estimate of the lease end
  private boolean handlerReturned; // guarded by this
  private LeaseLostException lostLease; // guarded by this
  private byte[] result; // guarded by this

  /**
   * An attempt of {@code consumer} at {@code message} under {@code claim}, whose lease has {@code
   * remainingLease} left; heartbeat renewals extend it by {@code renewalLease}.
   */
  RunningAttempt(
      String consumer,
      InboxStore store,
      ConsumeSteps steps,
      Duration renewalLease,
      Message message,
      Claim claim,
      Duration remainingLease) {
    this.consumer = consumer;
    this.store = store;
    this.steps = steps;
    this.renewalLease = renewalLease;
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
    return consumer;
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
    ArgumentChecks.requirePositive(ArgumentChecks.requireValue(lease, "lease"), "lease");
    try {
      return extend(lease);
    } catch (LeaseLostException lost) {
      reportLeaseLost(lost);
      throw lost;
    }
  }

  /**
   * Extends the lease in the store, deliberately without holding this attempt's lock during the
   * store call: that call may wait for a pooled connection, and the worker thread needs the lock to
   * finish ({@link #handlerReturned}) while it holds a connection of its own (transactional mode).
   * Holding the lock across the call made a heartbeat tick and its worker wait for each other until
   * the pool's connection timeout whenever every connection was held by a running handler (a pool
   * sized to the number of workers).
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
    steps.emit(InboxEvent.Kind.LEASE_EXTENDED, extended.messageId(), extended.fencingToken(), null);
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
      extend(renewalLease);
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
   * Ends the attempt after a handler failure: no heartbeat tick starts any more, and a tick already
   * running is waited for, so that its extension cannot land after the failure is recorded and
   * replace the retry time with a fresh lease.
   *
   * <p>The wait is bounded by the remaining lease (as this instance last extended it, measured on
   * the local monotonic clock): a tick still stuck in the store by then is abandoned with a
   * warning, since the lease is over anyway. The worker holds no store resource while it waits here
   * in the lease mode and in {@code JdbcInboxStore.transactional} (its connection is closed when
   * the handler's exception leaves the effect), so the tick cannot be waiting for the worker. With
   * a caller-managed transaction the caller's connection stays open during the wait; a tick that
   * needs a pooled connection meanwhile delays the failure by at most that bound.
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
}
