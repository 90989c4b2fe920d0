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

  public static InboxConfig ofDefaults() {
    return DEFAULTS;
  }

  public static Builder custom() {
    return new Builder();
  }

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

  /** How long a claim excludes other instances before it may be taken over. */
  public Duration lease() {
    return lease;
  }

  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  public DedupWindow dedupWindow() {
    return dedupWindow;
  }

  /** How often a running handler's lease is renewed; empty when the heartbeat is off. */
  public Optional<Duration> heartbeatInterval() {
    return Optional.ofNullable(heartbeatInterval);
  }

  /** Whether a payload fingerprint is recorded and checked on every delivery. */
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
     */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    public Builder dedupWindow(DedupWindow dedupWindow) {
      this.dedupWindow = dedupWindow;
      return this;
    }

    /** Retention and broker redelivery window in one call; see {@link DedupWindow}. */
    public Builder dedupWindow(Duration retention, Duration redeliveryWindow) {
      this.dedupWindow = DedupWindow.of(retention, redeliveryWindow);
      return this;
    }

    /**
     * Renews the lease of a running handler every {@code interval}, which must be shorter than the
     * lease; the heartbeat stops when the handler returns. Off by default.
     */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = interval;
      this.heartbeatAtThird = false;
      return this;
    }

    /** Renews the lease at a third of its length while the handler runs. */
    public Builder heartbeat() {
      this.heartbeatInterval = null;
      this.heartbeatAtThird = true;
      return this;
    }

    /** Records a SHA-256 of the payload and refuses the same id with another payload. Off. */
    public Builder fingerprintPayloads(boolean fingerprintPayloads) {
      this.fingerprintPayloads = fingerprintPayloads;
      return this;
    }

    /**
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
