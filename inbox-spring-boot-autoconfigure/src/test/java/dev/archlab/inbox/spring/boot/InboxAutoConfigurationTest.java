package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** What the auto-configuration creates, from which properties, and when it backs off. */
class InboxAutoConfigurationTest {

  @Configuration(proxyBeanMethods = false)
  static class H2 {
    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(
          "jdbc:h2:mem:"
              + UUID.randomUUID()
              + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
      return ds;
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  InboxAutoConfiguration.class,
                  InboxMetricsAutoConfiguration.class,
                  InboxHealthAutoConfiguration.class))
          .withUserConfiguration(H2.class);

  @Test
  void createsStoreTableConsumersAndPrunerOnTheDataSource() {
    runner
        .withPropertyValues("inbox.table=app_inbox")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
              assertThat(store.table().value()).isEqualTo("app_inbox");
              assertThat(store.schemaExists()).isTrue();
              assertThat(ctx).hasSingleBean(InboxConsumers.class);
              assertThat(ctx).hasSingleBean(InboxPruner.class);
              assertThat(ctx.getBean(InboxPruner.class).isRunning()).isTrue();
              assertThat(ctx).hasSingleBean(InboxHealthIndicator.class);
            });
  }

  @Test
  void createSchemaFalseLeavesTheDatabaseAlone() {
    runner
        .withPropertyValues("inbox.create-schema=false")
        .run(ctx -> assertThat(ctx.getBean(JdbcInboxStore.class).schemaExists()).isFalse());
  }

  @Test
  void consumerPropertiesBecomeItsConfiguration() {
    runner
        .withPropertyValues(
            "inbox.consumers.orders.lease=45s",
            "inbox.consumers.orders.heartbeat=10s",
            "inbox.consumers.orders.max-attempts=7",
            "inbox.consumers.orders.backoff.initial-delay=2s",
            "inbox.consumers.orders.backoff.multiplier=3",
            "inbox.consumers.orders.backoff.max-delay=1m",
            "inbox.consumers.orders.backoff.jitter=0",
            "inbox.consumers.orders.retention=3d",
            "inbox.consumers.orders.redelivery-window=12h",
            "inbox.consumers.orders.fingerprint-payloads=true")
        .run(
            ctx -> {
              InboxConfig c = ctx.getBean(InboxConsumers.class).config("orders");
              assertThat(c.lease()).isEqualTo(Duration.ofSeconds(45));
              assertThat(c.heartbeatInterval()).contains(Duration.ofSeconds(10));
              assertThat(c.retryPolicy().maxAttempts()).isEqualTo(7);
              assertThat(c.retryPolicy().initialDelay()).isEqualTo(Duration.ofSeconds(2));
              assertThat(c.retryPolicy().multiplier()).isEqualTo(3.0);
              assertThat(c.retryPolicy().maxDelay()).isEqualTo(Duration.ofMinutes(1));
              assertThat(c.retryPolicy().jitter()).isZero();
              assertThat(c.dedupWindow().retention()).isEqualTo(Duration.ofDays(3));
              assertThat(c.dedupWindow().redeliveryWindow()).isEqualTo(Duration.ofHours(12));
              assertThat(c.fingerprintPayloads()).isTrue();
              // A name with no settings gets the library defaults.
              assertThat(ctx.getBean(InboxConsumers.class).config("other").toString())
                  .isEqualTo(InboxConfig.ofDefaults().toString());
            });
  }

  @Test
  void badConsumerSettingFailsStartupNamingTheProperty() {
    runner
        .withPropertyValues("inbox.consumers.orders.max-attempts=0")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              assertThat(ctx.getStartupFailure())
                  .rootCause()
                  .isInstanceOf(InvalidConfigurationException.class)
                  .hasMessageContaining("inbox.consumers.orders.max-attempts");
            });
  }

  @Test
  void pruneCanBeSwitchedOff() {
    runner
        .withPropertyValues("inbox.prune.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(InboxPruner.class));
  }

  @Test
  void userStoreReplacesTheAutoConfiguredOne() {
    runner
        .withBean(
            "myStore",
            JdbcInboxStore.class,
            () -> JdbcInboxStore.builder(new H2().dataSource()).table("mine").build())
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(JdbcInboxStore.class);
              assertThat(ctx.getBean(JdbcInboxStore.class).table().value()).isEqualTo("mine");
              assertThat(ctx.getBean(InboxConsumers.class).store())
                  .isSameAs(ctx.getBean(JdbcInboxStore.class));
            });
  }

  @Test
  void withoutADataSourceNothingIsCreated() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).doesNotHaveBean(JdbcInboxStore.class);
            });
  }

  @Test
  void prunerDeletesOnlyDoneRecordsPastEachConsumersRetention() {
    runner
        .withPropertyValues("inbox.consumers.orders.retention=7d", "inbox.prune-batch-size=1")
        .run(
            ctx -> {
              InboxConsumers consumers = ctx.getBean(InboxConsumers.class);
              IdempotentConsumer orders = consumers.idempotent("orders", (m, a) -> {});
              for (String id : List.of("old-1", "old-2", "new-1")) {
                orders.consume(Message.of(id));
              }
              // Age two DONE records past the retention, in the database's own terms.
              new JdbcTemplate(ctx.getBean(DataSource.class))
                  .update(
                      "UPDATE inbox SET updated_at = updated_at - INTERVAL '30' DAY"
                          + " WHERE message_id LIKE 'old-%'");

              // Batches of one row: the loop must go on until nothing is left to delete.
              assertThat(ctx.getBean(InboxPruner.class).pruneNow()).containsEntry("orders", 2L);

              JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
              assertThat(store.find("orders", "old-1")).isEmpty();
              assertThat(store.find("orders", "old-2")).isEmpty();
              assertThat(store.find("orders", "new-1")).isPresent();
              assertThat(ctx.getBean(InboxPruner.class).pruneNow()).containsEntry("orders", 0L);
            });
  }
}
