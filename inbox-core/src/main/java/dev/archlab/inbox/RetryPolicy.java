package dev.archlab.inbox;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * When a failed message may be tried again, and how many attempts it gets before it is parked as
 * DEAD. Delays grow exponentially from {@code initialDelay} by {@code multiplier}, are capped at
 * {@code maxDelay}, and are spread by a random {@code jitter} fraction so that many messages that
 * failed together do not all retry in the same instant.
 *
 * <p>Immutable and thread-safe. Defaults ({@link #ofDefaults()}): 5 attempts, 1 s initial delay,
 * multiplier 2, at most 5 min, jitter 0.2.
 */
public final class RetryPolicy {
  /** Longest delay accepted: far beyond any sane backoff, far below where nanoseconds overflow. */
  static final Duration MAX_DURATION = Duration.ofDays(365);

  // Declared after MAX_DURATION: building the defaults reads it.
  private static final RetryPolicy DEFAULTS = custom().build();

  private final int maxAttempts;
  private final Duration initialDelay;
  private final double multiplier;
  private final Duration maxDelay;
  private final double jitter;
  private final DoubleSupplier random;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.initialDelay = b.initialDelay;
    this.multiplier = b.multiplier;
    this.maxDelay = b.maxDelay;
    this.jitter = b.jitter;
    this.random = b.random;
  }

  /**
   * 5 attempts, 1 s initial delay, multiplier 2, at most 5 min, jitter 0.2.
   *
   * @return the shared default policy
   */
  public static RetryPolicy ofDefaults() {
    return DEFAULTS;
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * A builder starting from {@code base}.
   *
   * @param base the policy whose settings, random source included, the builder starts from
   * @return a new builder; {@code base} is unchanged
   * @throws NullPointerException if {@code base} is null
   */
  public static Builder from(RetryPolicy base) {
    Builder b = new Builder();
    b.maxAttempts = base.maxAttempts;
    b.initialDelay = base.initialDelay;
    b.multiplier = base.multiplier;
    b.maxDelay = base.maxDelay;
    b.jitter = base.jitter;
    b.random = base.random;
    return b;
  }

  /**
   * Attempts (first try included) before a message is parked as DEAD; at least 1.
   *
   * @return the attempt limit
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Delay after the first failure, before jitter.
   *
   * @return a positive duration, at most {@link #maxDelay()}
   */
  public Duration initialDelay() {
    return initialDelay;
  }

  /**
   * Growth factor of the delay per further failure.
   *
   * @return a finite number, at least 1
   */
  public double multiplier() {
    return multiplier;
  }

  /**
   * Upper bound of any delay, jitter included.
   *
   * @return a positive duration, at most 365 days
   */
  public Duration maxDelay() {
    return maxDelay;
  }

  /**
   * Random spread as a fraction of the delay.
   *
   * @return a number in [0, 1]
   */
  public double jitter() {
    return jitter;
  }

  /**
   * The delay before the next attempt after attempt number {@code failedAttempt} (1-based) failed.
   * Always within {@code [0, maxDelay]}.
   *
   * @param failedAttempt the number of the attempt that failed, 1-based
   * @return {@code initialDelay * multiplier^(failedAttempt - 1)}, capped at {@code maxDelay} and
   *     spread by up to {@code ±jitter} of itself, never above {@code maxDelay}
   * @throws InvalidArgumentException if {@code failedAttempt} is below 1
   */
  public Duration delayAfter(int failedAttempt) {
    if (failedAttempt < 1) {
      throw new InvalidArgumentException("failedAttempt must be >= 1, was " + failedAttempt);
    }
    double base = initialDelay.toNanos() * Math.pow(multiplier, failedAttempt - 1);
    double capped = Math.min(base, maxDelay.toNanos());
    // Symmetric jitter: uniformly within ±jitter of the capped delay, never above maxDelay.
    double spread = capped * jitter * (2 * random.getAsDouble() - 1);
    double nanos = Math.max(0, Math.min(maxDelay.toNanos(), capped + spread));
    return Duration.ofNanos((long) nanos);
  }

  /**
   * True when a message whose attempt {@code attempt} failed has attempts left.
   *
   * @param attempt the number of the attempt that failed, 1-based
   * @return whether {@code attempt} is below {@link #maxAttempts()}
   */
  public boolean hasAttemptsLeftAfter(int attempt) {
    return attempt < maxAttempts;
  }

  @Override
  public String toString() {
    return "RetryPolicy[maxAttempts="
        + maxAttempts
        + ", initialDelay="
        + initialDelay
        + ", multiplier="
        + multiplier
        + ", maxDelay="
        + maxDelay
        + ", jitter="
        + jitter
        + "]";
  }

  /** Builds a validated {@link RetryPolicy}. */
  public static final class Builder {
    private int maxAttempts = 5;
    private Duration initialDelay = Duration.ofSeconds(1);
    private double multiplier = 2.0;
    private Duration maxDelay = Duration.ofMinutes(5);
    private double jitter = 0.2;
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

    private Builder() {}

    /**
     * Attempts before DEAD, first try included. 1 means "never retry". Default 5.
     *
     * @param maxAttempts the attempt limit; checked by {@link #build()} to be at least 1
     * @return this builder
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Delay after the first failure. Default 1 s.
     *
     * @param initialDelay the first delay; checked by {@link #build()} to be positive and at most
     *     {@code maxDelay}
     * @return this builder
     */
    public Builder initialDelay(Duration initialDelay) {
      this.initialDelay = initialDelay;
      return this;
    }

    /**
     * Growth factor per further failure, at least 1. Default 2.
     *
     * @param multiplier the factor; checked by {@link #build()} to be finite and at least 1
     * @return this builder
     */
    public Builder multiplier(double multiplier) {
      this.multiplier = multiplier;
      return this;
    }

    /**
     * Upper bound of any delay. Default 5 min.
     *
     * @param maxDelay the bound; checked by {@link #build()} to be positive, at most 365 days and
     *     not shorter than {@code initialDelay}
     * @return this builder
     */
    public Builder maxDelay(Duration maxDelay) {
      this.maxDelay = maxDelay;
      return this;
    }

    /**
     * Random spread as a fraction of the delay, in [0, 1]. 0 makes delays exact. Default 0.2.
     *
     * @param jitter the fraction; checked by {@link #build()} to be within [0, 1]
     * @return this builder
     */
    public Builder jitter(double jitter) {
      this.jitter = jitter;
      return this;
    }

    /**
     * Source of uniform numbers in [0, 1) for the jitter; for deterministic tests.
     *
     * @param random the source; checked by {@link #build()} to be non-null
     * @return this builder
     */
    public Builder random(DoubleSupplier random) {
      this.random = random;
      return this;
    }

    /**
     * Builds the policy after checking every setting.
     *
     * @return the immutable policy
     * @throws InvalidConfigurationException naming the first bad setting
     * @throws NullPointerException if the random source is null
     */
    public RetryPolicy build() {
      if (maxAttempts < 1) {
        throw new InvalidConfigurationException(
            "retry maxAttempts must be at least 1, was " + maxAttempts);
      }
      requirePositive(initialDelay, "retry initialDelay");
      requirePositive(maxDelay, "retry maxDelay");
      if (maxDelay.compareTo(MAX_DURATION) > 0) {
        throw new InvalidConfigurationException(
            "retry maxDelay must be at most " + MAX_DURATION + ", was " + maxDelay);
      }
      if (maxDelay.compareTo(initialDelay) < 0) {
        throw new InvalidConfigurationException(
            "retry maxDelay ("
                + maxDelay
                + ") must not be shorter than initialDelay ("
                + initialDelay
                + ")");
      }
      if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
        throw new InvalidConfigurationException(
            "retry multiplier must be a finite number >= 1, was " + multiplier);
      }
      if (!(jitter >= 0.0 && jitter <= 1.0)) {
        throw new InvalidConfigurationException(
            "retry jitter must be between 0 and 1, was " + jitter);
      }
      Objects.requireNonNull(random, "random");
      return new RetryPolicy(this);
    }
  }

  static void requirePositive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidConfigurationException(name + " must be a positive duration, was " + d);
    }
  }
}
