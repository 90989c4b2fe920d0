package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxOperations;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.operator.InboxOperations;
import dev.archlab.inbox.redis.RedisInboxOperations;
import dev.archlab.inbox.redis.RedisInboxStore;
import dev.archlab.inbox.redis.RedisServers;
import dev.archlab.inbox.redis.RedisStoreFixture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Which store the starter configures: JDBC exactly as before when the application has a DataSource
 * and names no store (even with a Lettuce client bean), Redis when {@code inbox.store=redis} says
 * so (even beside a DataSource) or when a Lettuce client is all the application has; and a named
 * store the application cannot have fails at start-up with a message naming what is missing.
 */
class InboxStoreSelectionTest {

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

  @Configuration(proxyBeanMethods = false)
  static class Lettuce {
    @Bean(destroyMethod = "shutdown")
    RedisClient redisClient() {
      return RedisClient.create(RedisURI.create("127.0.0.1", RedisServers.standalone().port()));
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  InboxStoreAutoConfiguration.class,
                  InboxAutoConfiguration.class,
                  InboxRedisAutoConfiguration.class,
                  InboxHealthAutoConfiguration.class))
          .withPropertyValues("inbox.prune.enabled=false");

  private static String redisUrl() {
    return "inbox.redis.url=redis://127.0.0.1:" + RedisServers.standalone().port();
  }

  private static String freshPrefix() {
    return "inbox.redis.key-prefix=sel-" + UUID.randomUUID() + ":";
  }

  @Test
  void aDataSourceAndNoStoreNamedIsTheJdbcStoreAsBeforeEvenBesideALettuceClient() {
    runner
        .withUserConfiguration(H2.class, Lettuce.class)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(JdbcInboxStore.class);
              assertThat(ctx).hasSingleBean(InboxConsumers.class);
              assertThat(ctx).doesNotHaveBean(RedisInboxStore.class);
              assertThat(ctx.getBean(InboxOperations.class))
                  .isInstanceOf(JdbcInboxOperations.class);
              assertThat(ctx).hasSingleBean(InboxHealthIndicator.class);
            });
  }

  @Test
  void storeRedisWinsOverADataSource() {
    runner
        .withUserConfiguration(H2.class)
        .withPropertyValues("inbox.store=redis", redisUrl(), freshPrefix())
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(RedisInboxStore.class);
              assertThat(ctx).doesNotHaveBean(JdbcInboxStore.class);
              assertThat(ctx).doesNotHaveBean(InboxConsumers.class);
              assertThat(ctx.getBean(InboxOperations.class))
                  .isInstanceOf(RedisInboxOperations.class);
              IdempotentConsumer orders =
                  ctx.getBean(IdempotentConsumers.class).idempotent("orders", (m, a) -> {});
              assertThat(orders.consume(Message.of("o-1")).status())
                  .isEqualTo(Outcome.Status.APPLIED);
              assertThat(ctx.getBean(RedisInboxStore.class).find("orders", "o-1")).isPresent();
            });
  }

  @Test
  void aLettuceClientWithoutADataSourceImpliesRedisOnThatClient() {
    runner
        .withUserConfiguration(Lettuce.class)
        .withPropertyValues(freshPrefix())
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(RedisInboxStore.class);
              assertThat(ctx).hasSingleBean(InboxHealthIndicator.class);
              IdempotentConsumer orders =
                  ctx.getBean(IdempotentConsumers.class).idempotent("orders", (m, a) -> {});
              assertThat(orders.consume(Message.of("o-1")).status())
                  .isEqualTo(Outcome.Status.APPLIED);
            });
  }

  @Test
  void noDataSourceNoClientAndNoStoreNamedConfiguresNothing() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx).doesNotHaveBean(InboxOperations.class);
          assertThat(ctx).doesNotHaveBean(IdempotentConsumers.class);
        });
  }

  @Test
  void theScheduledPruneRunsOnRedis() {
    try (RedisStoreFixture fixture = RedisStoreFixture.standalone(4)) {
      runner
          .withBean(RedisInboxStore.class, fixture::store, d -> d.setDestroyMethodName(""))
          .withPropertyValues("inbox.store=redis", "inbox.prune.enabled=true")
          .run(
              ctx -> {
                assertThat(ctx).hasNotFailed();
                IdempotentConsumer orders =
                    ctx.getBean(IdempotentConsumers.class).idempotent("orders", (m, a) -> {});
                orders.consume(Message.of("old-1"));
                fixture.advanceTime(Duration.ofDays(8)); // past the default 7-day retention
                orders.consume(Message.of("new-1"));

                assertThat(ctx.getBean(InboxPruner.class).pruneNow())
                    .isEqualTo(Map.of("orders", 1L));
                assertThat(fixture.store().find("orders", "old-1")).isEmpty();
                assertThat(fixture.store().find("orders", "new-1")).isPresent();
              });
    }
  }

  @Test
  void storeRedisWithoutInboxRedisOnTheClassPathFailsSayingSo() {
    runner
        .withClassLoader(new FilteredClassLoader(RedisInboxStore.class))
        .withPropertyValues("inbox.store=redis", redisUrl())
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("inbox.store=redis needs inbox-redis on the class path"));
  }

  @Test
  void storeRedisWithoutAUrlOrClientFailsSayingWhatToSet() {
    runner
        .withPropertyValues("inbox.store=redis")
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("set inbox.redis.url")
                    .hasMessageContaining("Lettuce RedisClient or RedisClusterClient bean"));
  }

  @Test
  void storeJdbcWithoutADataSourceFailsSayingSo() {
    runner
        .withPropertyValues("inbox.store=jdbc")
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("inbox.store=jdbc needs a DataSource bean"));
  }

  @Test
  void storeJdbcWithoutInboxJdbcOnTheClassPathFailsSayingSo() {
    runner
        .withClassLoader(new FilteredClassLoader(JdbcInboxStore.class))
        .withUserConfiguration(H2.class)
        .withPropertyValues("inbox.store=jdbc")
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("inbox.store=jdbc needs inbox-jdbc on the class path"));
  }

  @Test
  void anUnknownStoreFailsNamingTheChoices() {
    runner
        .withUserConfiguration(H2.class)
        .withPropertyValues("inbox.store=mongo")
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessage("inbox.store must be jdbc or redis, was 'mongo'"));
  }
}
