package dev.archlab.inbox;

import java.time.Duration;
import java.util.Optional;

/**
 * Immutable, validated settings of an {@link IdempotentConsumer}.
 *
 * <p>Defaults ({@link #ofDefaults()}): 30 s lease, {@link RetryPolicy#ofDefaults()}, {@link
 * DedupWindow#DEFAULT} (7 d retention, 1 d redelivery window), no heartbeat, no payload
 * fingerprint.
 */
public final class InboxConfig {
  private static final InboxConfig DEFAULTS = custom().build();

  private final Duration lease;
  private final RetryPolicy retryPolicy;
  private final DedupWindow dedupWindow;
  private final Duration heartbeatInterval;
  private final boolean heartbeatAtThird;
  private final boolean fingerprintPayloads;

  private InboxConfig(Builder b, Duration heartbeatInterval) {
    this.lease = b.lease;
    this.retryPolicy = b.retryPolicy;
    this.dedupWindow = b.dedupWindow;
    this.heartbeatInterval = heartbeatInterval;
    this.heartbeatAtThird = b.heartbeatAtThird;
    this.fingerprintPayloads = b.fingerprintPayloads;
  }

  /**
   * 30 s lease, default retries, default dedup window, no heartbeat, no payload fingerprint.
   *
   * @return the shared default configuration
   */
  public static InboxConfig ofDefaults() {
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
   * A builder starting from {@code base}. A heartbeat chosen with {@link Builder#heartbeat()} stays
   * "a third of the lease", so it follows a changed lease.
   *
   * @param base the configuration whose settings the builder starts from
   * @return a new builder; {@code base} is unchanged
   * @throws NullPointerException if {@code base} is null
   */
  public static Builder from(InboxConfig base) {
    Builder b = new Builder();
    b.lease = base.lease;
    b.retryPolicy = base.retryPolicy;
    b.dedupWindow = base.dedupWindow;
    // A heartbeat chosen as "a third of the lease" follows a changed lease.
    b.heartbeatInterval = base.heartbeatAtThird ? null : base.heartbeatInterval;
    b.heartbeatAtThird = base.heartbeatAtThird;
    b.fingerprintPayloads = base.fingerprintPayloads;
    return b;
  }

  /**
   * How long a claim excludes other instances before it may be taken over.
   *
   * @return a positive duration, shorter than the dedup retention
   */
  public Duration lease() {
    return lease;
  }

  /**
   * When failed messages are retried and when they are parked as DEAD.
   *
   * @return the retry policy, never null
   */
  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /**
   * How long DONE records are kept, against the broker's redelivery window.
   *
   * @return the dedup window, never null; its retention is longer than the lease
   */
  public DedupWindow dedupWindow() {
    return dedupWindow;
  }

  /**
   * How often a running handler's lease is renewed; empty when the heartbeat is off.
   *
   * @return the positive interval, shorter than the lease, or empty
   */
  public Optional<Duration> heartbeatInterval() {
    return Optional.ofNullable(heartbeatInterval);
  }

  /**
   * Whether a payload fingerprint is recorded and checked on every delivery.
   *
   * @return true when fingerprints are recorded and checked
   */
  public boolean fingerprintPayloads() {
    return fingerprintPayloads;
  }

  @Override
  public String toString() {
    return "InboxConfig[lease="
        + lease
        + ", retryPolicy="
        + retryPolicy
        + ", dedupWindow="
        + dedupWindow
        + ", heartbeatInterval="
        + heartbeatInterval
        + ", fingerprintPayloads="
        + fingerprintPayloads
        + "]";
  }

  /** Builds a validated {@link InboxConfig}. */
  public static final class Builder {
    private Duration lease = Duration.ofSeconds(30);
    private RetryPolicy retryPolicy = RetryPolicy.ofDefaults();
    private DedupWindow dedupWindow = DedupWindow.DEFAULT;
    private Duration heartbeatInterval;
    private boolean heartbeatAtThird;
    private boolean fingerprintPayloads;

    private Builder() {}

    /**
     * How long a claim excludes other instances. Choose it longer than the handler's normal run
     * time: a handler still running when its lease ends may be run a second time by another
     * instance (its own completion is then fenced out). Default 30 s.
     *
     * @param lease the lease; checked by {@link #build()} to be positive and shorter than the dedup
     *     retention
     * @return this builder
     */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /**
     * When failed messages are retried. Default {@link RetryPolicy#ofDefaults()}.
     *
     * @param retryPolicy the policy; checked by {@link #build()} to be non-null
     * @return this builder
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * How long DONE records are kept. Default {@link DedupWindow#DEFAULT}.
     *
     * @param dedupWindow the window; checked by {@link #build()} to be non-null with a retention
     *     longer than the lease
     * @return this builder
     */
    public Builder dedupWindow(DedupWindow dedupWindow) {
      this.dedupWindow = dedupWindow;
      return this;
    }

    /**
     * Retention and broker redelivery window in one call; see {@link DedupWindow}.
     *
     * @param retention how long a DONE record is kept after it was last updated
     * @param redeliveryWindow the longest time after which the broker may still redeliver
     * @return this builder
     * @throws InvalidConfigurationException at once, if the window itself is invalid (see {@link
     *     DedupWindow#DedupWindow})
     */
    public Builder dedupWindow(Duration retention, Duration redeliveryWindow) {
      this.dedupWindow = DedupWindow.of(retention, redeliveryWindow);
      return this;
    }

    /**
     * Renews the lease of a running handler every {@code interval}, which must be shorter than the
     * lease; the heartbeat stops when the handler returns. Off by default.
     *
     * @param interval the renewal interval; null turns the heartbeat off; checked by {@link
     *     #build()} to be positive and shorter than the lease
     * @return this builder
     */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = interval;
      this.heartbeatAtThird = false;
      return this;
    }

    /**
     * Renews the lease at a third of its length while the handler runs.
     *
     * @return this builder
     */
    public Builder heartbeat() {
      this.heartbeatInterval = null;
      this.heartbeatAtThird = true;
      return this;
    }

    /**
     * Records a SHA-256 of the payload and refuses the same id with another payload. Off.
     *
     * @param fingerprintPayloads true to record and check fingerprints
     * @return this builder
     */
    public Builder fingerprintPayloads(boolean fingerprintPayloads) {
      this.fingerprintPayloads = fingerprintPayloads;
      return this;
    }

    /**
     * Builds the configuration after checking every setting.
     *
     * @return the immutable configuration
     * @throws InvalidConfigurationException naming the first bad setting
     */
    public InboxConfig build() {
      RetryPolicy.requirePositive(lease, "lease");
      if (retryPolicy == null) {
        throw new InvalidConfigurationException("retryPolicy must not be null");
      }
      if (dedupWindow == null) {
        throw new InvalidConfigurationException("dedupWindow must not be null");
      }
      Duration interval = heartbeatAtThird ? lease.dividedBy(3) : heartbeatInterval;
      if (interval != null) {
        RetryPolicy.requirePositive(interval, "heartbeat interval");
        if (interval.compareTo(lease) >= 0) {
          throw new InvalidConfigurationException(
              "heartbeat interval ("
                  + interval
                  + ") must be shorter than the lease ("
                  + lease
                  + "), or the lease runs out between two renewals");
        }
      }
      if (dedupWindow.retention().compareTo(lease) <= 0) {
        throw new InvalidConfigurationException(
            "dedup retention ("
                + dedupWindow.retention()
                + ") must be longer than the lease ("
                + lease
                + ")");
      }
      return new InboxConfig(this, interval);
    }
  }
}
