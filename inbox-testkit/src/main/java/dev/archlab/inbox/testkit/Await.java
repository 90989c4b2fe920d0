package dev.archlab.inbox.testkit;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits for a state the code under test guarantees to reach eventually, by polling. The limit only
 * turns a hang into a failure: it is far above what a slow, loaded machine needs, and no assertion
 * may rest on how soon the state came. For "something happened concurrently", build the situation
 * with latches or held leases instead.
 */
public final class Await {

  /** The default limit, in seconds: {@value}. */
  public static final long LIMIT_SECONDS = 180;

  private static final long POLL_MILLIS = 50;

  private Await() {}

  /**
   * Returns once {@code condition} is true, polling it every 50 ms, for at most {@value
   * #LIMIT_SECONDS} s.
   *
   * @param what the state waited for, named in the failure
   * @param condition checks the state; may throw, which ends the wait with its exception
   * @throws AssertionError if the limit passed first, or the thread was interrupted
   */
  public static void until(String what, BooleanSupplier condition) {
    until(what, LIMIT_SECONDS, condition);
  }

  /**
   * Returns once {@code condition} is true, polling it every 50 ms, for at most {@code
   * limitSeconds}.
   *
   * @param what the state waited for, named in the failure
   * @param limitSeconds how long to wait at most; keep it in minutes
   * @param condition checks the state; may throw, which ends the wait with its exception
   * @throws AssertionError if the limit passed first, or the thread was interrupted
   */
  public static void until(String what, long limitSeconds, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not reached within " + limitSeconds + " s: " + what);
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
