package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryPolicyTest {

  private static final double ALMOST_ONE = Math.nextDown(1.0);

  @Test
  void defaultsAreDocumented() {
    RetryPolicy p = RetryPolicy.ofDefaults();

    assertThat(p.maxAttempts()).isEqualTo(5);
    assertThat(p.initialDelay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(p.multiplier()).isEqualTo(2.0);
    assertThat(p.maxDelay()).isEqualTo(Duration.ofMinutes(5));
    assertThat(p.jitter()).isEqualTo(0.2);
  }

  @Test
  void delaysGrowExponentiallyWithoutJitter() {
    RetryPolicy p = RetryPolicy.custom().jitter(0).maxAttempts(10).build();

    assertThat(IntStream.rangeClosed(1, 6).mapToObj(p::delayAfter))
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            Duration.ofSeconds(16),
            Duration.ofSeconds(32));
  }

  @Test
  void customMultiplierAndInitialDelayAreUsed() {
    RetryPolicy p =
        RetryPolicy.custom().jitter(0).initialDelay(Duration.ofMillis(100)).multiplier(3).build();

    assertThat(p.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.delayAfter(2)).isEqualTo(Duration.ofMillis(300));
    assertThat(p.delayAfter(3)).isEqualTo(Duration.ofMillis(900));
  }

  @Test
  void multiplierOneGivesConstantDelay() {
    RetryPolicy p = RetryPolicy.custom().jitter(0).multiplier(1).build();

    assertThat(p.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(p.delayAfter(7)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void delaysAreCappedAtMaxDelay() {
    RetryPolicy p = RetryPolicy.custom().jitter(0).maxDelay(Duration.ofSeconds(10)).build();

    assertThat(p.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
    assertThat(p.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.delayAfter(6)).isEqualTo(Duration.ofSeconds(10));
    // Far beyond any realistic attempt number the exponent overflows to infinity: still capped.
    assertThat(p.delayAfter(10_000)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void delayAfterRefusesAttemptNumbersBelowOne() {
    RetryPolicy p = RetryPolicy.ofDefaults();

    assertThatThrownBy(() -> p.delayAfter(0))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("failedAttempt")
        .hasMessageContaining("0");
  }

  @Test
  void jitterWithLowestRandomShortensByTheJitterFraction() {
    RetryPolicy p = RetryPolicy.custom().jitter(0.25).random(() -> 0.0).build();

    assertThat(p.delayAfter(1)).isEqualTo(Duration.ofMillis(750));
    assertThat(p.delayAfter(3)).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void jitterWithHighestRandomLengthensByAtMostTheJitterFraction() {
    RetryPolicy p = RetryPolicy.custom().jitter(0.25).random(() -> ALMOST_ONE).build();

    Duration d = p.delayAfter(1);
    assertThat(d)
        .isGreaterThan(Duration.ofMillis(1249))
        .isLessThanOrEqualTo(Duration.ofMillis(1250));
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 0.3, 0.5, 0.7, 0.9999999999999999})
  void jitteredDelaysStayWithinBoundsAndNeverExceedMaxDelay(double random) {
    double jitter = 0.5;
    Duration max = Duration.ofSeconds(20);
    RetryPolicy p = RetryPolicy.custom().maxDelay(max).jitter(jitter).random(() -> random).build();

    for (int attempt = 1; attempt <= 12; attempt++) {
      long capped = Math.min(Duration.ofSeconds(1L << (attempt - 1)).toNanos(), max.toNanos());
      long d = p.delayAfter(attempt).toNanos();
      assertThat(d)
          .as("attempt %d, random %s", attempt, random)
          .isGreaterThanOrEqualTo((long) (capped * (1 - jitter)) - 1)
          .isLessThanOrEqualTo((long) Math.min(capped * (1 + jitter), max.toNanos()))
          .isLessThanOrEqualTo(max.toNanos())
          .isNotNegative();
    }
  }

  @Test
  void fullJitterNeverGoesNegativeOrAboveMax() {
    Duration max = Duration.ofSeconds(3);
    RetryPolicy low = RetryPolicy.custom().maxDelay(max).jitter(1.0).random(() -> 0.0).build();
    RetryPolicy high =
        RetryPolicy.custom().maxDelay(max).jitter(1.0).random(() -> ALMOST_ONE).build();

    for (int attempt = 1; attempt <= 8; attempt++) {
      assertThat(low.delayAfter(attempt)).isEqualTo(Duration.ZERO);
      assertThat(high.delayAfter(attempt)).isLessThanOrEqualTo(max).isPositive();
    }
    // At the cap the upward half of the jitter is cut off at maxDelay.
    assertThat(high.delayAfter(8)).isEqualTo(max);
  }

  @Test
  void hasAttemptsLeftAfterCountsTheFirstTry() {
    RetryPolicy p = RetryPolicy.custom().maxAttempts(3).build();

    assertThat(p.hasAttemptsLeftAfter(1)).isTrue();
    assertThat(p.hasAttemptsLeftAfter(2)).isTrue();
    assertThat(p.hasAttemptsLeftAfter(3)).isFalse();
    assertThat(p.hasAttemptsLeftAfter(4)).isFalse();

    RetryPolicy once = RetryPolicy.custom().maxAttempts(1).build();
    assertThat(once.hasAttemptsLeftAfter(1)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
  void refusesMaxAttemptsBelowOne(int bad) {
    assertThatThrownBy(() -> RetryPolicy.custom().maxAttempts(bad).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxAttempts")
        .hasMessageContaining(String.valueOf(bad));
  }

  @Test
  void refusesNullZeroAndNegativeInitialDelay() {
    assertThatThrownBy(() -> RetryPolicy.custom().initialDelay(null).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("initialDelay")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> RetryPolicy.custom().initialDelay(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("initialDelay")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> RetryPolicy.custom().initialDelay(Duration.ofSeconds(-2)).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("initialDelay")
        .hasMessageContaining("PT-2S");
  }

  @Test
  void refusesNullZeroAndNegativeMaxDelay() {
    assertThatThrownBy(() -> RetryPolicy.custom().maxDelay(null).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxDelay")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> RetryPolicy.custom().maxDelay(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxDelay")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> RetryPolicy.custom().maxDelay(Duration.ofMillis(-5)).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxDelay")
        .hasMessageContaining("PT-0.005S");
  }

  @Test
  void refusesMaxDelayShorterThanInitialDelayNamingBoth() {
    assertThatThrownBy(
            () ->
                RetryPolicy.custom()
                    .initialDelay(Duration.ofSeconds(10))
                    .maxDelay(Duration.ofSeconds(3))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxDelay")
        .hasMessageContaining("PT3S")
        .hasMessageContaining("initialDelay")
        .hasMessageContaining("PT10S");
  }

  @Test
  void acceptsMaxDelayEqualToInitialDelay() {
    RetryPolicy p =
        RetryPolicy.custom()
            .jitter(0)
            .initialDelay(Duration.ofSeconds(2))
            .maxDelay(Duration.ofSeconds(2))
            .build();

    assertThat(p.delayAfter(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(p.delayAfter(5)).isEqualTo(Duration.ofSeconds(2));
  }

  @ParameterizedTest
  @ValueSource(
      doubles = {0.999, 0.0, -2.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
  void refusesBadMultipliers(double bad) {
    assertThatThrownBy(() -> RetryPolicy.custom().multiplier(bad).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("multiplier")
        .hasMessageContaining(String.valueOf(bad));
  }

  @ParameterizedTest
  @ValueSource(doubles = {-0.01, 1.01, 2.0, Double.NaN, Double.POSITIVE_INFINITY})
  void refusesJitterOutsideZeroToOne(double bad) {
    assertThatThrownBy(() -> RetryPolicy.custom().jitter(bad).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("jitter")
        .hasMessageContaining(String.valueOf(bad));
  }

  @Test
  void acceptsJitterAtBothEnds() {
    assertThat(RetryPolicy.custom().jitter(0.0).build().jitter()).isEqualTo(0.0);
    assertThat(RetryPolicy.custom().jitter(1.0).build().jitter()).isEqualTo(1.0);
  }

  @Test
  void fromCopiesEverySettingIncludingTheRandomSource() {
    RetryPolicy base =
        RetryPolicy.custom()
            .maxAttempts(7)
            .initialDelay(Duration.ofMillis(200))
            .multiplier(3)
            .maxDelay(Duration.ofSeconds(30))
            .jitter(0.5)
            .random(() -> 0.0)
            .build();

    RetryPolicy copy = RetryPolicy.from(base).build();

    assertThat(copy.maxAttempts()).isEqualTo(7);
    assertThat(copy.initialDelay()).isEqualTo(Duration.ofMillis(200));
    assertThat(copy.multiplier()).isEqualTo(3.0);
    assertThat(copy.maxDelay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(copy.jitter()).isEqualTo(0.5);
    // Same deterministic random source: 200 ms * (1 - 0.5).
    assertThat(copy.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(copy.toString()).isEqualTo(base.toString());
  }

  @Test
  void fromLeavesTheBaseUnchanged() {
    RetryPolicy base = RetryPolicy.custom().maxAttempts(7).build();

    RetryPolicy changed = RetryPolicy.from(base).maxAttempts(2).jitter(0).build();

    assertThat(changed.maxAttempts()).isEqualTo(2);
    assertThat(changed.jitter()).isEqualTo(0.0);
    assertThat(base.maxAttempts()).isEqualTo(7);
    assertThat(base.jitter()).isEqualTo(0.2);
  }

  @Test
  void fromRevalidates() {
    RetryPolicy base = RetryPolicy.ofDefaults();

    assertThatThrownBy(() -> RetryPolicy.from(base).maxAttempts(0).build())
        .isInstanceOf(InvalidConfigurationException.class);
  }

  /**
   * A policy that builds must be usable: delayAfter must not blow up with an ArithmeticException
   * for a (very) long but accepted maxDelay. Duration.toNanos() overflows beyond ~292 years.
   */
  @Test
  void aPolicyThatBuildsNeverThrowsFromDelayAfter() {
    Duration centuries = Duration.ofDays(365L * 1000);
    RetryPolicy p;
    try {
      p = RetryPolicy.custom().maxDelay(centuries).jitter(0).build();
    } catch (InvalidConfigurationException refused) {
      // Refusing the setting up front is an acceptable answer too.
      assertThat(refused).hasMessageContaining("maxDelay");
      return;
    }
    RetryPolicy policy = p;
    assertThatCode(() -> policy.delayAfter(1)).doesNotThrowAnyException();
    assertThatCode(() -> policy.delayAfter(200)).doesNotThrowAnyException();
  }
}
