package dev.archlab.inbox.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it. Thread-safe: stores and consumers on many
 * threads may read it while the test thread advances it.
 */
public final class MutableClock extends Clock {

  /** The instant every new clock starts at unless told otherwise. */
  public static final Instant DEFAULT_START = Instant.parse("2026-10-17T12:00:00Z");

  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  /** A UTC clock standing at {@link #DEFAULT_START}. */
  public MutableClock() {
    this(DEFAULT_START);
  }

  /**
   * A UTC clock standing at {@code start}.
   *
   * @param start the instant the clock shows until it is moved
   * @throws NullPointerException if {@code start} is null
   */
  public MutableClock(Instant start) {
    this(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /**
   * Moves the clock forward (or back, for a negative duration).
   *
   * @param duration how far to move; every view made by {@link #withZone} moves with it
   */
  public void advance(Duration duration) {
    now.updateAndGet(t -> t.plus(duration));
  }

  /**
   * Sets the clock to {@code instant}, which may be before the current one.
   *
   * @param instant the instant the clock shows from now on
   * @throws NullPointerException if {@code instant} is null
   */
  public void set(Instant instant) {

    now.set(Objects.requireNonNull(instant, "instant"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** A view in another zone sharing this clock's time. */
  @Override
  public Clock withZone(ZoneId zone) {
    return new MutableClock(now, zone);
  }
}
