package dev.archlab.inbox.cli;

import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/** One delivery waiting in the simulated broker. */
final class SimulatedDelivery implements Delayed {
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
}
