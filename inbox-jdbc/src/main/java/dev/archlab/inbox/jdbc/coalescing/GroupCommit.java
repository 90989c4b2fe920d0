package dev.archlab.inbox.jdbc.coalescing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * Leader/follower group commit without a timer: a caller that finds no flush running becomes the
 * leader and flushes at once (its own request, plus whatever queued before it drained), so a lone
 * caller never waits for company; callers that arrive while a flush runs queue up and are flushed
 * together by the next leader, which is the first of them, promoted when the running flush ends.
 *
 * <p>Guarantees: every submitted request is flushed exactly once, by exactly one leader, in at most
 * one flush at a time per instance; each caller gets the answer its flush set for it, or the
 * exception that ended its flush if the flush set none. A caller waiting for its answer ignores
 * interrupts (its request may already be in flight) and restores its interrupt flag afterwards.
 *
 * @param <Q> a request
 * @param <A> its answer
 */
final class GroupCommit<Q, A> {

  /** Runs one flush: sets an answer or an error on every pending it is given, or throws. */
  @FunctionalInterface
  interface Flush<Q, A> {
    void run(List<Pending<Q, A>> batch);
  }

  /** One caller's request and, once its flush has run, its answer or error. */
  static final class Pending<Q, A> {
    final Q request;
    private A answer;
    private RuntimeException error;
    private boolean decided;
    // Set before woken is, read after it: the volatile write and read order them.
    private boolean lead;
    private volatile boolean woken;
    // The thread parked for this request; null for a leader, which never parks.
    private Thread waiter;

    Pending(Q request) {
      this.request = request;
    }

    /** Sets this caller's answer; the first decision wins. */
    void answer(A value) {
      if (!decided) {
        answer = value;
        decided = true;
      }
    }

    /** Sets this caller's error; the first decision wins. */
    void fail(RuntimeException e) {
      if (!decided) {
        error = e;
        decided = true;
      }
    }

    boolean decided() {
      return decided;
    }
  }

  private final int maxBatch;
  private final Flush<Q, A> flush;
  private final UnaryOperator<RuntimeException> perCaller;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Pending<Q, A>> queue = new ArrayDeque<>();
  private boolean flushing;
  // Guarded by the lock; counted where the batch is drained, which holds it anyway.
  private long flushes;
  private long flushedRequests;

  /**
   * A group flushing at most {@code maxBatch} requests at a time with {@code flush}; when a flush
   * throws, each of its callers gets {@code perCaller} applied to the exception (a copy with the
   * caller's own stack, say), so no two threads throw one instance.
   */
  GroupCommit(int maxBatch, Flush<Q, A> flush, UnaryOperator<RuntimeException> perCaller) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
    }
    this.maxBatch = maxBatch;
    this.flush = flush;
    this.perCaller = perCaller;
  }

  /** Flushes {@code request}, alone or with others, and returns its answer or throws its error. */
  A submit(Q request) {
    Pending<Q, A> mine = new Pending<>(request);
    boolean leads;
    lock.lock();
    try {
      queue.add(mine);
      leads = !flushing;
      flushing = true;
      if (!leads) {
        mine.waiter = Thread.currentThread();
      }
    } finally {
      lock.unlock();
    }
    if (!leads) {
      // Parked outside the lock: a woken follower returns at once instead of queueing for the
      // lock behind the others woken by the same flush.
      awaitWake(mine);
      leads = mine.lead;
    }
    if (leads) {
      lead();
    }
    // Visible here: set by the leader before its volatile write of woken (or by us as leader).
    if (mine.error != null) {
      throw mine.error;
    }
    return mine.answer;
  }

  private void awaitWake(Pending<Q, A> mine) {
    boolean interrupted = false;
    while (!mine.woken) {
      LockSupport.park(this);
      // An interrupt ends park at once and keeps ending it while the flag is set: clear it.
      interrupted |= Thread.interrupted();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Drains up to {@code maxBatch} requests (this leader's own first), flushes, hands over. */
  private void lead() {
    List<Pending<Q, A>> batch = new ArrayList<>();
    lock.lock();
    try {
      while (batch.size() < maxBatch && !queue.isEmpty()) {
        batch.add(queue.poll());
      }
      flushes++;
      flushedRequests += batch.size();
    } finally {
      lock.unlock();
    }
    try {
      flush.run(batch);
      for (Pending<Q, A> p : batch) {
        if (!p.decided()) {
          p.fail(new IllegalStateException("a coalesced flush left a request unanswered"));
        }
      }
    } catch (RuntimeException | Error e) {
      RuntimeException shared =
          e instanceof RuntimeException re ? re : new IllegalStateException("flush failed", e);
      for (Pending<Q, A> p : batch) {
        p.fail(p == batch.get(0) ? shared : perCaller.apply(shared));
      }
      if (e instanceof Error err) {
        handOver(batch);
        throw err;
      }
    }
    handOver(batch);
  }

  /** How many callers wait for a flush: queued behind the running one (for tests and gauges). */
  int waiting() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Flushes started so far, and the requests they held: {@code [flushes, requests]}. */
  long[] flushCounts() {
    lock.lock();
    try {
      return new long[] {flushes, flushedRequests};
    } finally {
      lock.unlock();
    }
  }

  private static void wake(Pending<?, ?> p) {
    p.woken = true;
    Thread waiter = p.waiter;
    if (waiter != null) {
      LockSupport.unpark(waiter);
    }
  }

  /**
   * Promotes the first queued caller, if any, to lead next, then wakes it and the flushed
   * followers. Only the promotion needs the lock (it decides whether a flush is still running); the
   * wake-ups are made after it is released, the next leader's first so its flush starts while the
   * others return.
   */
  private void handOver(List<Pending<Q, A>> flushed) {
    Pending<Q, A> next;
    lock.lock();
    try {
      next = queue.peek();
      if (next != null) {
        next.lead = true;
      } else {
        flushing = false;
      }
    } finally {
      lock.unlock();
    }
    if (next != null) {
      wake(next);
    }
    Thread self = Thread.currentThread();
    for (Pending<Q, A> p : flushed) {
      // Not this leader's own request: an unpark of itself would leave a stray permit behind.
      if (p.waiter != null && p.waiter != self) {
        wake(p);
      }
    }
  }
}
