package dev.archlab.inbox.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * A store clock that moves on its own like a database's, and stalls: every read returns the time,
 * then moves it on by 0 to 900 ms in a fixed cycle, as if each call had been held up that long (a
 * GC pause, a loaded machine). The same cycle in every fresh clock, so runs replay exactly.
 * Thread-safe.
 */
final class StallingClock implements InstantSource {

  /** Longer than the fixed margins the model test once used (400 ms, 100 ms). */
  static final Duration LONGEST_STALL = Duration.ofMillis(900);

  private Instant now = MutableClock.DEFAULT_START;
  private long reads;

  @Override
  public synchronized Instant instant() {
    Instant read = now;
    reads++;
    now = now.plus(LONGEST_STALL.multipliedBy(reads % 7).dividedBy(6));
    return read;
  }

  /** Moves the clock forward by {@code d}, for a fixture's {@code advanceTime}. */
  synchronized void advance(Duration d) {
    now = now.plus(d);
  }
}
