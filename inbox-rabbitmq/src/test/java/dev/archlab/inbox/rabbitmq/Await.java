package dev.archlab.inbox.rabbitmq;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits for a state the code guarantees to reach eventually. The limit only turns a hang into a
 * failure; it is far above what a loaded machine needs and no assertion depends on speed.
 */
final class Await {

  static final long LIMIT_SECONDS = 180;

  private Await() {}

  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached within " + LIMIT_SECONDS + " s: " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
