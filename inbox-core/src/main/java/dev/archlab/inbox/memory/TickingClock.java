package dev.archlab.inbox.memory;

import java.time.Clock;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * Wall time read once per {@linkplain #TICK_NANOS tick} by a daemon thread and handed to every
 * reader as the same {@link Instant}: a read is one volatile load, no system call and no
 * allocation. The memory store stamps every claim and every completion, and on virtual machines a
 * wall-clock read costs as much as the store's whole map operation; this clock takes it off the
 * per-message path.
 *
 * <p>Guarantees: while the ticker runs, {@link #instant()} answers the source's time at the last
 * tick, so it lags the source by at most one tick plus however long the ticker thread waits for a
 * CPU (on a starved machine that wait, not the tick, bounds the lag). It never answers a time the
 * source had not reached. The ticker stops by itself after {@link #IDLE_TICKS} ticks without a
 * reader, so an idle process keeps no thread awake; the next read then asks the source directly and
 * starts the ticker again. Like {@link Clock#systemUTC()} it follows the wall clock, steps
 * included.
 */
final class TickingClock implements InstantSource {

  /** The tick: one millisecond. */
  static final long TICK_NANOS = 1_000_000L;

  /** Ticks without a read after which the ticker stops (about a second). */
  static final int IDLE_TICKS = 1_000;

  /** The one ticking UTC clock of this process, shared by every default memory store. */
  static final TickingClock SYSTEM_UTC = new TickingClock(Clock.systemUTC());

  private final InstantSource source;
  private final Object startStop = new Object();

  /** The source's time at the last tick. */
  private volatile Instant now;

  /** Whether the ticker thread runs (and keeps {@link #now} fresh). */
  private volatile boolean ticking;

  /**
   * Set by readers, cleared by the ticker: how it tells an idle clock from a busy one. Readers
   * write it only when it is clear, once per tick at most, so concurrent readers do not contend on
   * it.
   */
  private volatile boolean readSinceTick;

  TickingClock(InstantSource source) {
    this.source = Objects.requireNonNull(source, "source");
  }

  @Override
  public Instant instant() {
    if (!ticking) {
      return start();
    }
    if (!readSinceTick) {
      readSinceTick = true;
    }
    return now;
  }

  /** Whether the ticker thread runs now: for tests. */
  boolean ticking() {
    return ticking;
  }

  /** Reads the source, and starts the ticker unless another reader just did. */
  private Instant start() {
    synchronized (startStop) {
      Instant read = source.instant();
      if (!ticking) {
        now = read;
        readSinceTick = true;
        ticking = true;
        Thread ticker = new Thread(this::tickUntilIdle, "inbox-memory-store-clock");
        ticker.setDaemon(true);
        ticker.start();
      }
      return read;
    }
  }

  private void tickUntilIdle() {
    int idle = 0;
    while (true) {
      LockSupport.parkNanos(TICK_NANOS);
      now = source.instant();
      if (readSinceTick) {
        readSinceTick = false;
        idle = 0;
      } else if (++idle >= IDLE_TICKS) {
        synchronized (startStop) {
          // A reader that saw ticking == true after this check reads a time at most one tick
          // old, the same bound as a tick earlier; readers after it read the source directly.
          if (!readSinceTick) {
            ticking = false;
            return;
          }
        }
        idle = 0;
      }
    }
  }
}
