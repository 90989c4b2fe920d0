package dev.archlab.inbox.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code inbox.outbox.*} settings of the transactional outbox ({@link
 * InboxOutboxAutoConfiguration}): the table, and the relay the application runs. The defaults are
 * those of {@code Outbox} and {@code OutboxRelay}, which validate every value and name the bad one.
 */
@ConfigurationProperties("inbox.outbox")
public class InboxOutboxProperties {

  /** Whether the application has an outbox: the Outbox bean, its relay, meters and health. */
  private boolean enabled;

  /** The outbox table. */
  private String table = "inbox_outbox";

  /** Whether the outbox table is created at start-up when it is missing. */
  private boolean createSchema = true;

  /** The relay that publishes the outbox. */
  private final Relay relay = new Relay();

  /** Thresholds of the outbox health indicator. */
  private final Health health = new Health();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
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

  public Relay getRelay() {
    return relay;
  }

  public Health getHealth() {
    return health;
  }

  /** {@code inbox.outbox.relay.*}. */
  public static class Relay {

    /** Whether this instance runs a relay (several instances may: they share the work). */
    private boolean enabled = true;

    /** Where the Kafka publisher connects; unset: spring.kafka.bootstrap-servers. */
    private String bootstrapServers;

    /** Most rows one round claims and publishes. */
    private int batchSize = 100;

    /** How long the relay waits after a round that found nothing due. */
    private Duration pollInterval = Duration.ofMillis(100);

    /** How long SENT rows are kept before the relay prunes them. */
    private Duration retention = Duration.ofDays(7);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getBootstrapServers() {
      return bootstrapServers;
    }

    public void setBootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }
  }

  /** {@code inbox.outbox.health.*}. */
  public static class Health {

    /** DEAD rows from which the outbox is listed under attention. */
    private long deadThreshold = 1;

    /** Age of the oldest PENDING row from which the outbox is listed under attention. */
    private Duration oldestPendingThreshold = Duration.ofMinutes(5);

    /** Whether a listed outbox makes the health DOWN (otherwise UP with the attention detail). */
    private boolean downOnThreshold;

    public long getDeadThreshold() {
      return deadThreshold;
    }

    public void setDeadThreshold(long deadThreshold) {
      this.deadThreshold = deadThreshold;
    }

    public Duration getOldestPendingThreshold() {
      return oldestPendingThreshold;
    }

    public void setOldestPendingThreshold(Duration oldestPendingThreshold) {
      this.oldestPendingThreshold = oldestPendingThreshold;
    }

    public boolean isDownOnThreshold() {
      return downOnThreshold;
    }

    public void setDownOnThreshold(boolean downOnThreshold) {
      this.downOnThreshold = downOnThreshold;
    }
  }
}
