package dev.archlab.inbox.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.store.BeginRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The ticking clock's guarantees, on a source the test moves by hand: it answers only times the
 * source has reached, follows the source while read, stops its thread when idle and answers the
 * source directly after that. Waits poll with a backstop of minutes, never a fixed delay.
 */
class TickingClockTest {

  private static final Duration BACKSTOP = Duration.ofMinutes(2);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final AtomicReference<Instant> source = new AtomicReference<>(T0);
  private final TickingClock clock = new TickingClock(source::get);

  @Test
  void theFirstReadAsksTheSourceAndStartsTheTicker() {
    assertThat(clock.ticking()).isFalse();
    assertThat(clock.instant()).isEqualTo(T0);
    assertThat(clock.ticking()).isTrue();
  }

  @Test
  void followsTheSourceAndIsNeverAheadOfIt() {
    clock.instant();
    Instant t1 = T0.plusSeconds(5);
    source.set(t1);
    long deadline = System.nanoTime() + BACKSTOP.toNanos();
    Instant seen = clock.instant();
    while (!seen.equals(t1) && System.nanoTime() < deadline) {
      // The source only moves forward here, so any answer past it would be a time it never had.
      assertThat(seen).isIn(T0, t1);
      Thread.onSpinWait();
      seen = clock.instant();
    }
    assertThat(seen).as("the tick after the source moved").isEqualTo(t1);
  }

  @Test
  void stopsWhenIdleThenReadsTheSourceDirectly() throws InterruptedException {
    clock.instant();
    long deadline = System.nanoTime() + BACKSTOP.toNanos();
    while (clock.ticking() && System.nanoTime() < deadline) {
      Thread.sleep(50); // polling interval only; nobody reads the clock meanwhile
    }
    assertThat(clock.ticking())
        .as("stopped after %d idle ticks", TickingClock.IDLE_TICKS)
        .isFalse();

    Instant t2 = T0.plusSeconds(60);
    source.set(t2);
    // No tick ran since the source moved: only a direct read can answer t2.
    assertThat(clock.instant()).isEqualTo(t2);
    assertThat(clock.ticking()).isTrue();
  }

  @Test
  void theDefaultStoreNeverStampsATimeTheWallClockHasNotReached() {
    MemoryInboxStore store = new MemoryInboxStore();
    for (int i = 0; i < 1_000; i++) {
      InboxRecord claimed =
          store.begin(new BeginRequest("c", "m" + i, Duration.ofSeconds(30), 5, null)).record();
      Instant after = Instant.now();
      assertThat(claimed.createdAt()).isBeforeOrEqualTo(after);
      assertThat(store.currentTime()).isBeforeOrEqualTo(Instant.now());
    }
  }
}
