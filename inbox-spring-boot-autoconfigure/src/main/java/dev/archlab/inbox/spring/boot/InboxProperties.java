package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.RetryPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code inbox.*} settings. Every consumer setting left unset keeps the library's default (see
 * {@link InboxConfig#ofDefaults()}); {@link #configFor(String)} turns a consumer's settings into an
 * {@link InboxConfig} and names the offending property when a value is invalid.
 */
@ConfigurationProperties("inbox")
public class InboxProperties {

  /**
   * Which store holds the records: jdbc (the application's DataSource) or redis (inbox.redis.url or
   * the application's Lettuce client). Unset: jdbc when there is a DataSource, else redis when
   * there is a Lettuce client bean.
   */
  private String store;

  /** Name of the inbox table, optionally schema-qualified. */
  private String table = "inbox";

  /** Whether to create the inbox table and its index at startup if they are missing. */
  private boolean createSchema = true;

  /** Rows deleted per statement when pruning, so a prune never holds long locks. */
  private int pruneBatchSize = 10_000;

  // Plain text in property comments: the configuration processor copies them into the IDE's help.
  /** Consumers by name: inbox.consumers.NAME.lease and the other consumer settings. */
  private final Map<String, Consumer> consumers = new LinkedHashMap<>();

  private final Prune prune = new Prune();

  private final Health health = new Health();

  private final Metrics metrics = new Metrics();

  private final Kafka kafka = new Kafka();

  private final Ui ui = new Ui();

  public String getStore() {
    return store;
  }

  public void setStore(String store) {
    this.store = store;
  }

  public String getTable() {
    return table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  public boolean isCreateSchema() {
    return createSchema;
  }

  public void setCreateSchema(boolean createSchema) {
    this.createSchema = createSchema;
  }

  public int getPruneBatchSize() {
    return pruneBatchSize;
  }

  public void setPruneBatchSize(int pruneBatchSize) {
    this.pruneBatchSize = pruneBatchSize;
  }

  public Map<String, Consumer> getConsumers() {
    return consumers;
  }

  public Prune getPrune() {
    return prune;
  }

  public Health getHealth() {
    return health;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Ui getUi() {
    return ui;
  }

  public Kafka getKafka() {
    return kafka;
  }

  /**
   * The configuration of consumer {@code name}: its {@code inbox.consumers.<name>.*} settings over
   * the library defaults, or the defaults if it has none.
   *
   * @param name the consumer name
   * @return the validated configuration
   * @throws InvalidConfigurationException naming the property ({@code
   *     inbox.consumers.<name>.<setting>}) and the bad value
   */
  public InboxConfig configFor(String name) {
    Consumer c = consumers.get(name);
    return c == null ? InboxConfig.ofDefaults() : c.toConfig("inbox.consumers." + name);
  }

  /** One consumer's settings; unset ones keep the library default. */
  public static class Consumer {

    /** How long a claim is exclusive before another instance may take the message over. */
    private Duration lease;

    /** Lease renewal interval while a handler runs; unset for no heartbeat. */
    private Duration heartbeat;

    /** Attempts before a message is parked as DEAD (1 = no retry). */
    private Integer maxAttempts;

    private final Backoff backoff = new Backoff();

    /** How long DONE records are kept (deduplicate) before pruning may delete them. */
    private Duration retention;

    /** How long after the first delivery the broker may still redeliver; at most the retention. */
    private Duration redeliveryWindow;

    /** Whether to store a SHA-256 of the first payload and refuse a different payload later. */
    private Boolean fingerprintPayloads;

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }

    public Duration getHeartbeat() {
      return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
      this.heartbeat = heartbeat;
    }

    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Backoff getBackoff() {
      return backoff;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }

    public Duration getRedeliveryWindow() {
      return redeliveryWindow;
    }

    public void setRedeliveryWindow(Duration redeliveryWindow) {
      this.redeliveryWindow = redeliveryWindow;
    }

    public Boolean getFingerprintPayloads() {
      return fingerprintPayloads;
    }

    public void setFingerprintPayloads(Boolean fingerprintPayloads) {
      this.fingerprintPayloads = fingerprintPayloads;
    }

    InboxConfig toConfig(String prefix) {
      InboxConfig.Builder b = InboxConfig.custom();
      set(prefix + ".lease", lease, () -> b.lease(lease));
      set(prefix + ".heartbeat", heartbeat, () -> b.heartbeatInterval(heartbeat));
      RetryPolicy.Builder retry = RetryPolicy.custom();
      set(prefix + ".max-attempts", maxAttempts, () -> retry.maxAttempts(maxAttempts));
      String bp = prefix + ".backoff";
      set(
          bp + ".initial-delay",
          backoff.initialDelay,
          () -> retry.initialDelay(backoff.initialDelay));
      set(bp + ".multiplier", backoff.multiplier, () -> retry.multiplier(backoff.multiplier));
      set(bp + ".max-delay", backoff.maxDelay, () -> retry.maxDelay(backoff.maxDelay));
      set(bp + ".jitter", backoff.jitter, () -> retry.jitter(backoff.jitter));
      // The retry policy validates max-attempts and backoff together when built.
      set(prefix + ".max-attempts/.backoff", "", () -> b.retryPolicy(retry.build()));
      if (retention != null || redeliveryWindow != null) {
        Duration keep = retention != null ? retention : DedupWindow.DEFAULT.retention();
        Duration redeliver =
            redeliveryWindow != null ? redeliveryWindow : DedupWindow.DEFAULT.redeliveryWindow();
        set(
            prefix + ".retention/.redelivery-window",
            keep,
            () -> b.dedupWindow(DedupWindow.of(keep, redeliver)));
      }
      set(
          prefix + ".fingerprint-payloads",
          fingerprintPayloads,
          () -> b.fingerprintPayloads(fingerprintPayloads));
      try {
        return b.build();
      } catch (InboxException e) {
        throw new InvalidConfigurationException(prefix + ": " + e.getMessage());
      }
    }

    // Applies one setting if present; a refusal names the property it came from.
    private static void set(String property, Object value, Runnable apply) {
      if (value == null) {
        return;
      }
      try {
        apply.run();
      } catch (InboxException e) {
        throw new InvalidConfigurationException(property + ": " + e.getMessage());
      }
    }
  }

  /** Retry backoff between failed attempts; unset values keep the library default. */
  public static class Backoff {

    /** Delay after the first failure. */
    private Duration initialDelay;

    /** Factor applied to the delay after each further failure. */
    private Double multiplier;

    /** Upper bound of the delay. */
    private Duration maxDelay;

    /** Random spread of each delay, from 0 (none) to 1. */
    private Double jitter;

    public Duration getInitialDelay() {
      return initialDelay;
    }

    public void setInitialDelay(Duration initialDelay) {
      this.initialDelay = initialDelay;
    }

    public Double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(Double multiplier) {
      this.multiplier = multiplier;
    }

    public Duration getMaxDelay() {
      return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
      this.maxDelay = maxDelay;
    }

    public Double getJitter() {
      return jitter;
    }

    public void setJitter(Double jitter) {
      this.jitter = jitter;
    }
  }

  /** The scheduled prune of DONE records past each consumer's retention. */
  public static class Prune {

    /** Whether this instance prunes on a schedule. Safe on every instance: prune is idempotent. */
    private boolean enabled = true;

    /** Time between two prune runs. */
    private Duration interval = Duration.ofHours(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }

  /** The Actuator health indicator {@code inbox}. */
  /** The operator page under the Actuator base path (inbox.ui.*). */
  public static class Ui {

    /** Whether to serve the operator page at the Actuator base path plus /inbox-ui/. */
    private boolean enabled = false;

    /** Whether the operator page only shows records and refuses every action. */
    private boolean readOnly = false;

    /**
     * Access token the operator page requires on every request, as a bearer token or as the
     * basic-auth password; none by default (then protect the path as the other endpoints are).
     */
    private String token;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isReadOnly() {
      return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
      this.readOnly = readOnly;
    }

    public String getToken() {
      return token;
    }

    public void setToken(String token) {
      this.token = token;
    }
  }

  public static class Health {

    /** Expired PROCESSING leases (stuck messages) of one consumer at which health reports it. */
    private long stuckLeasesThreshold = 1;

    /** DEAD records of one consumer at which health reports it. */
    private long deadThreshold = 1;

    /** Whether a threshold reached makes the status DOWN; by default it is only a detail. */
    private boolean downOnThreshold = false;

    public long getStuckLeasesThreshold() {
      return stuckLeasesThreshold;
    }

    public void setStuckLeasesThreshold(long stuckLeasesThreshold) {
      this.stuckLeasesThreshold = stuckLeasesThreshold;
    }

    public long getDeadThreshold() {
      return deadThreshold;
    }

    public void setDeadThreshold(long deadThreshold) {
      this.deadThreshold = deadThreshold;
    }

    public boolean isDownOnThreshold() {
      return downOnThreshold;
    }

    public void setDownOnThreshold(boolean downOnThreshold) {
      this.downOnThreshold = downOnThreshold;
    }
  }

  /** The Micrometer meters (registered when the application has a MeterRegistry). */
  public static class Metrics {

    /** Whether to register the Inbox meters. */
    private boolean enabled = true;

    /** Least time between two store reads for the gauges, however often they are scraped. */
    private Duration statsInterval = Duration.ofSeconds(30);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getStatsInterval() {
      return statsInterval;
    }

    public void setStatsInterval(Duration statsInterval) {
      this.statsInterval = statsInterval;
    }
  }

  /** Spring Kafka listeners that consume through an inbox consumer. */
  public static class Kafka {

    /**
     * The @KafkaListener ids whose records run through an inbox consumer: one business effect per
     * message id, DEAD and id-less records sent to the dead-letter topic.
     */
    private final Map<String, KafkaListener> listeners = new LinkedHashMap<>();

    public Map<String, KafkaListener> getListeners() {
      return listeners;
    }
  }

  /** Where a listener's message ids come from. */
  public enum MessageIdFrom {
    /** The last header named by {@code message-id-header}, as UTF-8. */
    HEADER,
    /** The record key (a String or UTF-8 bytes). */
    KEY,
    /**
     * {@code topic-partition-offset}: only if the producer never retries and the topic is never
     * re-written, since a producer retry gets a new offset.
     */
    TOPIC_PARTITION_OFFSET
  }

  /** One {@code @KafkaListener} consuming through an inbox consumer. */
  public static class KafkaListener {

    /** The inbox consumer (configured under inbox.consumers.*); the listener id if unset. */
    private String consumer;

    /** Where each record's message id comes from. */
    private MessageIdFrom messageId = MessageIdFrom.HEADER;

    /** The header carrying the message id when message-id is HEADER. */
    private String messageIdHeader = "message-id";

    /** Appended to a record's topic to name its dead-letter topic. */
    private String deadLetterSuffix = ".DLT";

    public String getConsumer() {
      return consumer;
    }

    public void setConsumer(String consumer) {
      this.consumer = consumer;
    }

    public MessageIdFrom getMessageId() {
      return messageId;
    }

    public void setMessageId(MessageIdFrom messageId) {
      this.messageId = messageId;
    }

    public String getMessageIdHeader() {
      return messageIdHeader;
    }

    public void setMessageIdHeader(String messageIdHeader) {
      this.messageIdHeader = messageIdHeader;
    }

    public String getDeadLetterSuffix() {
      return deadLetterSuffix;
    }

    public void setDeadLetterSuffix(String deadLetterSuffix) {
      this.deadLetterSuffix = deadLetterSuffix;
    }
  }
}
