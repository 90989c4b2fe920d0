package dev.archlab.inbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test-only clock that stands still until a test moves it. inbox-core tests cannot use the
 * testkit's MutableClock (reactor cycle), so this is a minimal copy. Thread-safe.
 */
public final class SettableClock extends Clock {

  public static final Instant START = Instant.parse("2026-10-17T12:00:00Z");

  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  public SettableClock() {
    this(new AtomicReference<>(START), ZoneOffset.UTC);
  }

  private SettableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  public void advance(Duration duration) {
    now.updateAndGet(t -> t.plus(duration));
  }

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

  @Override
  public Clock withZone(ZoneId zone) {
    return new SettableClock(now, zone);
  }
}
