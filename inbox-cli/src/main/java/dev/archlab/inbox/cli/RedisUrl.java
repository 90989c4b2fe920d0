package dev.archlab.inbox.cli;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.redis.RedisInboxStore;
import dev.archlab.inbox.redis.RedisSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Redis URL as the operator commands take it: {@code redis://host:port[/db]} or {@code
 * rediss://...} (TLS), credentials in the URL ({@code redis://user:password@host:port}), and three
 * query parameters of ours, removed before the rest goes to the client: {@code cluster=true} (the
 * hosts, comma-separated, are seeds of a Redis Cluster), {@code keyPrefix} and {@code buckets},
 * which must be the application's store settings (defaults {@value
 * RedisSettings#DEFAULT_KEY_PREFIX} and {@value RedisSettings#DEFAULT_BUCKETS}): records are found
 * by the bucket their id hashes to. Immutable.
 *
 * @param clientUri the URL the Redis client connects to, without our parameters
 * @param cluster whether it names a Redis Cluster
 * @param keyPrefix the store's key prefix
 * @param buckets the store's bucket count
 */
record RedisUrl(String clientUri, boolean cluster, String keyPrefix, int buckets) {

  private static final List<String> SCHEMES = List.of("redis://", "rediss://");

  /** Whether {@code url} starts with a Redis scheme (any case). */
  static boolean isRedis(String url) {
    String lower = url.strip().toLowerCase(Locale.ROOT);
    return SCHEMES.stream().anyMatch(lower::startsWith);
  }

  /** "redis:// or rediss://", for messages. */
  static String schemes() {
    return String.join(" or ", SCHEMES);
  }

  /**
   * Parses {@code url}.
   *
   * @throws InvalidArgumentException naming the bad parameter (a usage error)
   */
  static RedisUrl parse(String url) {
    String value = url.strip();
    int query = value.indexOf('?');
    String base = query < 0 ? value : value.substring(0, query);
    boolean cluster = false;
    String keyPrefix = RedisSettings.DEFAULT_KEY_PREFIX;
    int buckets = RedisSettings.DEFAULT_BUCKETS;
    List<String> kept = new ArrayList<>();
    if (query >= 0) {
      for (String parameter : value.substring(query + 1).split("&")) {
        if (parameter.isEmpty()) {
          continue;
        }
        int eq = parameter.indexOf('=');
        String name = eq < 0 ? parameter : parameter.substring(0, eq);
        String arg = eq < 0 ? "" : parameter.substring(eq + 1);
        switch (name) {
          case "cluster" -> cluster = bool(arg);
          case "keyPrefix" -> keyPrefix = arg;
          case "buckets" -> buckets = count(arg);
          default -> kept.add(parameter);
        }
      }
    }
    String clientUri = kept.isEmpty() ? base : base + "?" + String.join("&", kept);
    // Validates the prefix and the bucket count now, with the store's own messages.
    new RedisSettings(
        keyPrefix,
        buckets,
        RedisSettings.DEFAULT_RETENTION,
        0,
        RedisSettings.DEFAULT_REPLICA_TIMEOUT);
    return new RedisUrl(clientUri, cluster, keyPrefix, buckets);
  }

  /**
   * Connects. The retention is the store's default: it only sets the expiry of completions, and the
   * operator commands complete nothing.
   *
   * @throws dev.archlab.inbox.StoreUnavailableException if Redis cannot be reached
   */
  RedisInboxStore connect() {
    return RedisInboxStore.builder()
        .uri(clientUri)
        .cluster(cluster)
        .keyPrefix(keyPrefix)
        .buckets(buckets)
        .build();
  }

  private static boolean bool(String arg) {
    return switch (arg.toLowerCase(Locale.ROOT)) {
      case "true", "" -> true;
      case "false" -> false;
      default ->
          throw new InvalidArgumentException(
              "invalid Redis URL parameter cluster=" + arg + ": use true or false");
    };
  }

  private static int count(String arg) {
    try {
      return Integer.parseInt(arg);
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException(
          "invalid Redis URL parameter buckets=" + arg + ": use a whole number");
    }
  }
}
