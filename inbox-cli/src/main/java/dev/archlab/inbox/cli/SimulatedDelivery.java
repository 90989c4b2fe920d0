package dev.archlab.inbox.cli;

import dev.archlab.inbox.Outcome;
import java.time.Duration;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/** One delivery waiting in the simulated broker. */
final class SimulatedDelivery implements Delayed {

  /**
   * The longest the simulated broker waits before it redelivers a delivery that was not
   * acknowledged, whatever the outcome's hint, as the broker adapters cap it ({@code
   * maxRetryDelay}, {@code maxPause}). An IN_FLIGHT hint is the holder's whole lease, which may be
   * long (another process, an operator's claim): honouring it would leave the run waiting for that
   * lease after the holder has finished. Coming back early is harmless: IN_FLIGHT again.
   */
  static final long MAX_REDELIVERY_DELAY_NANOS = Duration.ofSeconds(2).toNanos();

  final String id;
  final long dueNanos;

  SimulatedDelivery(String id, long delayNanos) {
    this.id = id;
    this.dueNanos = System.nanoTime() + delayNanos;
  }

  @Override
  public long getDelay(TimeUnit unit) {
    return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
  }

  @Override
  public int compareTo(Delayed o) {
    return Long.compare(dueNanos, ((SimulatedDelivery) o).dueNanos);
  }

  /**
   * How long the simulated broker keeps an unacknowledged delivery before it delivers it again: the
   * outcome's hint, at least 5 ms (no busy loop) and at most {@link #MAX_REDELIVERY_DELAY_NANOS}.
   */
  static long redeliveryDelayNanos(Outcome notAcknowledged) {
    long hint = notAcknowledged.retryAfter().toNanos();
    return Math.min(MAX_REDELIVERY_DELAY_NANOS, Math.max(5_000_000L, hint));
  }
}
