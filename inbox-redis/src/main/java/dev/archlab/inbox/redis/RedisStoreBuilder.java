package dev.archlab.inbox.redis;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.StoreUnavailableException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Builds a {@link RedisInboxStore}. Exactly one of {@link #uri}, {@link #client} or {@link
 * #clusterClient} says where Redis is; every other setting has the default documented in {@link
 * RedisSettings}. Not thread-safe; {@link #build()} may be called more than once.
 */
public final class RedisStoreBuilder {

  private String uri;
  private boolean cluster;
  private RedisClient client;
  private RedisClusterClient clusterClient;
  private String keyPrefix = RedisSettings.DEFAULT_KEY_PREFIX;
  private int buckets = RedisSettings.DEFAULT_BUCKETS;
  private Duration retention = RedisSettings.DEFAULT_RETENTION;
  private int replicasToWaitFor;
  private Duration replicaTimeout = RedisSettings.DEFAULT_REPLICA_TIMEOUT;

  RedisStoreBuilder() {}

  /**
   * Connects to the Redis at {@code uri} ({@code redis://host:port[/db]}, {@code rediss://...});
   * the store creates its own client and closes it with itself. For a cluster, give one or more
   * comma-separated seed nodes, {@code redis://h1:p1,h2:p2}, and set {@link #cluster(boolean)}.
   *
   * @param uri the server's URI
   * @return this builder
   */
  public RedisStoreBuilder uri(String uri) {
    this.uri = Objects.requireNonNull(uri, "uri");
    return this;
  }

  /**
   * Whether {@link #uri} names a Redis Cluster; default false. The store's cluster client reads the
   * topology again after a failover (adaptive refresh) and every 30 s.
   *
   * @param cluster true for a cluster
   * @return this builder
   */
  public RedisStoreBuilder cluster(boolean cluster) {
    this.cluster = cluster;
    return this;
  }

  /**
   * Uses an existing client for one server; the store opens its own connection with it and closes
   * only that connection.
   *
   * @param client the client
   * @return this builder
   */
  public RedisStoreBuilder client(RedisClient client) {
    this.client = Objects.requireNonNull(client, "client");
    return this;
  }

  /**
   * Uses an existing Redis Cluster client; the store opens its own connection with it and closes
   * only that connection.
   *
   * @param clusterClient the cluster client
   * @return this builder
   */
  public RedisStoreBuilder clusterClient(RedisClusterClient clusterClient) {
    this.clusterClient = Objects.requireNonNull(clusterClient, "clusterClient");
    return this;
  }

  /**
   * What every key starts with; default {@value RedisSettings#DEFAULT_KEY_PREFIX}.
   *
   * @param keyPrefix the prefix, without braces
   * @return this builder
   */
  public RedisStoreBuilder keyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
    return this;
  }

  /**
   * How many buckets (hash slots) one consumer's records spread over; default {@value
   * RedisSettings#DEFAULT_BUCKETS}. Must stay the same for the life of the records.
   *
   * @param buckets 1 to {@value RedisSettings#MAX_BUCKETS}
   * @return this builder
   */
  public RedisStoreBuilder buckets(int buckets) {
    this.buckets = buckets;
    return this;
  }

  /**
   * How long a DONE record is kept: its Redis expiry, the dedup window; default 7 days.
   *
   * @param retention at least one millisecond
   * @return this builder
   */
  public RedisStoreBuilder retention(Duration retention) {
    this.retention = retention;
    return this;
  }

  /**
   * Makes every write wait until {@code replicas} replicas acknowledged it ({@code WAIT}), at most
   * {@code timeout}; default: no waiting. A write not confirmed in time throws {@link
   * dev.archlab.inbox.StoreUnavailableException}.
   *
   * @param replicas how many replicas; 0 turns waiting off
   * @param timeout how long to wait, at least one millisecond
   * @return this builder
   */
  public RedisStoreBuilder waitForReplicas(int replicas, Duration timeout) {
    this.replicasToWaitFor = replicas;
    this.replicaTimeout = timeout;
    return this;
  }

  /**
   * Validates the settings and connects.
   *
   * @return a store; close it when done
   * @throws InvalidConfigurationException if a setting is invalid or not exactly one of uri, client
   *     and cluster client was given
   * @throws StoreUnavailableException if Redis cannot be reached
   */
  public RedisInboxStore build() {
    RedisSettings settings =
        new RedisSettings(keyPrefix, buckets, retention, replicasToWaitFor, replicaTimeout);
    int given = (uri != null ? 1 : 0) + (client != null ? 1 : 0) + (clusterClient != null ? 1 : 0);
    if (given != 1) {
      throw new InvalidConfigurationException(
          "give exactly one of uri, client and clusterClient; got " + given);
    }
    return new RedisInboxStore(connect(), settings);
  }

  private RedisTarget connect() {
    if (client != null) {
      return connected(() -> new RedisTarget.Standalone(client, false), null);
    }
    if (clusterClient != null) {
      return connected(() -> new RedisTarget.Cluster(clusterClient, false), null);
    }
    if (cluster) {
      RedisClusterClient owned = RedisClusterClient.create(seeds(uri));
      owned.setOptions(failoverAwareOptions());
      return connected(() -> new RedisTarget.Cluster(owned, true), owned::shutdown);
    }
    RedisClient owned = RedisClient.create(parse(uri));
    return connected(() -> new RedisTarget.Standalone(owned, true), owned::shutdown);
  }

  /** Connects; a failure is {@link StoreUnavailableException}, after {@code cleanUp}. */
  private static RedisTarget connected(Supplier<RedisTarget> connect, Runnable cleanUp) {
    try {
      return connect.get();
    } catch (RedisException e) {
      if (cleanUp != null) {
        cleanUp.run();
      }
      throw new StoreUnavailableException("cannot connect to Redis: " + e.getMessage(), e);
    }
  }

  /**
   * Cluster client options that follow a failover: besides Lettuce's adaptive refresh (on by
   * default: the topology is read again when a node keeps refusing connections or answers
   * MOVED/ASK), the topology is read every 30 s regardless, so commands reach a promoted replica.
   */
  static ClusterClientOptions failoverAwareOptions() {
    return ClusterClientOptions.builder()
        .topologyRefreshOptions(
            ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(Duration.ofSeconds(30))
                .build())
        .build();
  }

  private static List<RedisURI> seeds(String uri) {
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd < 0) {
      return List.of(parse(uri));
    }
    String scheme = uri.substring(0, schemeEnd + 3);
    List<RedisURI> seeds = new ArrayList<>();
    for (String hostPort : uri.substring(schemeEnd + 3).split(",")) {
      seeds.add(parse(hostPort.contains("://") ? hostPort : scheme + hostPort));
    }
    return seeds;
  }

  private static RedisURI parse(String uri) {
    try {
      return RedisURI.create(uri);
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigurationException("not a Redis URI: '" + uri + "': " + e.getMessage());
    }
  }
}
