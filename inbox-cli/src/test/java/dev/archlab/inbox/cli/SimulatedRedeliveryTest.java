package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Outcome;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The simulated broker of {@code inbox simulate} redelivers an unacknowledged delivery after the
 * outcome's hint, but never waits longer than the cap: a message another process holds under a long
 * lease (the kill tests' holder holds one for an hour) must come back soon after that process
 * finishes, not when its lease would have run out. Without the cap the three-process kill test hung
 * whenever a run met the held id before the driver released it.
 */
class SimulatedRedeliveryTest {

  private static final Instant NOW = Instant.parse("2026-12-05T07:00:00Z");

  @Test
  void aLongInFlightHintIsCappedSoTheRunSeesTheEndOfAForeignClaimSoon() {
    Outcome heldForAnHour = Outcome.inFlight("held", 1, Duration.ofHours(1), NOW.plusSeconds(3600));

    assertThat(SimulatedDelivery.redeliveryDelayNanos(heldForAnHour))
        .isEqualTo(SimulatedDelivery.MAX_REDELIVERY_DELAY_NANOS)
        .isEqualTo(Duration.ofSeconds(2).toNanos());
  }

  @Test
  void aShortHintIsKeptAndNoneBecomesAShortPause() {
    Outcome backoff =
        Outcome.failed(
            "poison", 1, Duration.ofMillis(300), NOW.plusMillis(300), new RuntimeException("x"));
    Outcome leaseJustEnded = Outcome.inFlight("expired", 1, Duration.ZERO, NOW);

    assertThat(SimulatedDelivery.redeliveryDelayNanos(backoff))
        .isEqualTo(Duration.ofMillis(300).toNanos());
    assertThat(SimulatedDelivery.redeliveryDelayNanos(leaseJustEnded))
        .isEqualTo(Duration.ofMillis(5).toNanos());
  }
}
