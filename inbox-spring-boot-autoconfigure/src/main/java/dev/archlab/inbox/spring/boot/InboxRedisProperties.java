package dev.archlab.inbox.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code inbox.redis.*} settings of the Redis store ({@link InboxRedisAutoConfiguration}).
 * Where Redis is: {@code inbox.redis.url}, or else the application's Lettuce {@code RedisClient} or
 * {@code RedisClusterClient} bean. The defaults are those of {@code RedisSettings}; the store
 * validates every value and names the bad one.
 */
@ConfigurationProperties("inbox.redis")
public class InboxRedisProperties {

  /**
   * Where Redis is: redis://host:port[/db] or rediss://...; for a cluster, comma-separated seed
   * nodes redis://h1:p1,h2:p2 with inbox.redis.cluster=true. Unset: the application's Lettuce
   * client bean.
   */
  private String url;

  /** Whether inbox.redis.url names a Redis Cluster. */
  private boolean cluster;

  /** What every key of the store starts with. */
  private String keyPrefix = "inbox:";

  /** How many buckets (hash slots) one consumer's records spread over; keep it for their life. */
  private int buckets = 64;

  /** How long a DONE record is kept (its Redis expiry); at least each consumer's retention. */
  private Duration retention = Duration.ofDays(7);

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public boolean isCluster() {
    return cluster;
  }

  public void setCluster(boolean cluster) {
    this.cluster = cluster;
  }

  public String getKeyPrefix() {
    return keyPrefix;
  }

  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  public int getBuckets() {
    return buckets;
  }

  public void setBuckets(int buckets) {
    this.buckets = buckets;
  }

  public Duration getRetention() {
    return retention;
  }

  public void setRetention(Duration retention) {
    this.retention = retention;
  }
}
