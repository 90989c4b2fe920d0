package dev.archlab.inbox.redis;

import dev.archlab.inbox.InvalidConfigurationException;
import java.time.Duration;
import java.util.Objects;

/**
 * The validated settings of a {@link RedisInboxStore}. Immutable.
 *
 * @param keyPrefix what every key of the store starts with; default {@value #DEFAULT_KEY_PREFIX}.
 *     Two stores with different prefixes share a server without seeing each other's records
 * @param buckets how many buckets, so hash slots, one consumer's records spread over; default
 *     {@value #DEFAULT_BUCKETS}. Changing it for existing records hides them: records are found by
 *     the bucket their id hashes to
 * @param retention how long a DONE record is kept (its Redis expiry, so the dedup window); default
 *     7 days
 * @param replicasToWaitFor how many replicas must acknowledge every write before it returns ({@code
 *     WAIT}); default 0, no waiting
 * @param replicaTimeout how long a write waits for those replicas; default 1 s
 */
public record RedisSettings(
    String keyPrefix,
    int buckets,
    Duration retention,
    int replicasToWaitFor,
    Duration replicaTimeout) {

  /** The default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "inbox:";

  /** The default bucket count. */
  public static final int DEFAULT_BUCKETS = 64;

  /** The default retention of DONE records. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** The default time a write waits for its replicas, when it waits. */
  public static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofSeconds(1);

  /** The most buckets: Redis Cluster has 16384 slots. */
  public static final int MAX_BUCKETS = 16384;

  /**
   * Validates every setting.
   *
   * @param keyPrefix the key prefix: not blank, at most 100 characters, no braces (they would make
   *     it the hash tag)
   * @param buckets between 1 and {@value #MAX_BUCKETS}
   * @param retention positive, at least one millisecond
   * @param replicasToWaitFor zero or more
   * @param replicaTimeout positive, at least one millisecond
   * @throws InvalidConfigurationException naming the bad setting and its value
   */
  public RedisSettings {
    if (keyPrefix == null
        || keyPrefix.isBlank()
        || keyPrefix.length() > 100
        || keyPrefix.indexOf('{') >= 0
        || keyPrefix.indexOf('}') >= 0) {
      throw new InvalidConfigurationException(
          "keyPrefix must be 1 to 100 characters without braces, was "
              + (keyPrefix == null ? "null" : "'" + keyPrefix + "'"));
    }
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      throw new InvalidConfigurationException(
          "buckets must be between 1 and " + MAX_BUCKETS + ", was " + buckets);
    }
    requireMillis(retention, "retention");
    if (replicasToWaitFor < 0) {
      throw new InvalidConfigurationException(
          "replicasToWaitFor must be >= 0, was " + replicasToWaitFor);
    }
    requireMillis(replicaTimeout, "replicaTimeout");
  }

  /**
   * The defaults: prefix {@value #DEFAULT_KEY_PREFIX}, {@value #DEFAULT_BUCKETS} buckets, 7 days
   * retention, no waiting for replicas.
   *
   * @return the default settings
   */
  public static RedisSettings ofDefaults() {
    return new RedisSettings(
        DEFAULT_KEY_PREFIX, DEFAULT_BUCKETS, DEFAULT_RETENTION, 0, DEFAULT_REPLICA_TIMEOUT);
  }

  private static void requireMillis(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.toMillis() < 1) {
      throw new InvalidConfigurationException(name + " must be at least one millisecond, was " + d);
    }
  }
}
