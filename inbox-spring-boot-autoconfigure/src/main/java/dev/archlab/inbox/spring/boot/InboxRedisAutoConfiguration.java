package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.operator.InboxOperations;
import dev.archlab.inbox.redis.RedisInboxOperations;
import dev.archlab.inbox.redis.RedisInboxStore;
import dev.archlab.inbox.redis.RedisStoreBuilder;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AllNestedConditions;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Auto-configures Inbox on Redis ({@code inbox-redis} on the class path) when {@code
 * inbox.store=redis}, or when {@code inbox.store} is unset, the application has no {@link
 * DataSource} and has a Lettuce client bean: a {@link RedisInboxStore} at {@code inbox.redis.url}
 * (or on the application's {@code RedisClient} / {@code RedisClusterClient}), {@link
 * IdempotentConsumers} for the consumers under {@code inbox.consumers.*}, the {@link
 * InboxOperations} that the health indicator, endpoint, meters and operator page read, and a
 * scheduled {@link InboxPruner}. An application with a DataSource keeps the JDBC store ({@link
 * InboxAutoConfiguration}) unless {@code inbox.store=redis} says otherwise. Every bean backs off
 * when the application defines its own of the same type; {@link InboxStoreCheck} refuses a
 * configuration that names Redis but cannot build the store.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(RedisInboxStore.class)
@Conditional(InboxRedisAutoConfiguration.RedisSelected.class)
@EnableConfigurationProperties({InboxProperties.class, InboxRedisProperties.class})
public class InboxRedisAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxRedisAutoConfiguration() {}

  /**
   * The store: at {@code inbox.redis.url} when set (the store owns that connection and closes it
   * with the context), else on the application's single Lettuce client (whose owner closes it).
   *
   * @param settings {@code inbox.redis.*}
   * @param clients the application's Lettuce client for one server, if any
   * @param clusterClients the application's Lettuce cluster client, if any
   * @return the connected store
   * @throws InvalidConfigurationException if neither a URL nor a single client says where Redis is
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RedisInboxStore inboxStore(
      InboxRedisProperties settings,
      ObjectProvider<RedisClient> clients,
      ObjectProvider<RedisClusterClient> clusterClients) {
    RedisStoreBuilder builder =
        RedisInboxStore.builder()
            .keyPrefix(settings.getKeyPrefix())
            .buckets(settings.getBuckets())
            .retention(settings.getRetention());
    String url = settings.getUrl();
    RedisClient client = clients.getIfUnique();
    RedisClusterClient clusterClient = clusterClients.getIfUnique();
    if (url != null && !url.isBlank()) {
      builder.uri(url).cluster(settings.isCluster());
    } else if (clusterClient != null) {
      builder.clusterClient(clusterClient);
    } else if (client != null) {
      builder.client(client);
    } else {
      throw new InvalidConfigurationException(InboxStoreCheck.REDIS_WHERE);
    }
    return builder.build();
  }

  /**
   * Consumers by name, configured from {@code inbox.consumers.*}.
   *
   * @param store the store
   * @param properties the {@code inbox.*} settings
   * @param observation meters for the consumers, if Micrometer is set up
   * @return the consumer factory, closing its consumers with the context
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public IdempotentConsumers inboxConsumers(
      RedisInboxStore store,
      InboxProperties properties,
      ObjectProvider<ConsumerObservation> observation) {
    return new IdempotentConsumers(store, properties, observation::getIfUnique);
  }

  /**
   * What operators and monitoring read and do on the store's records.
   *
   * @param store the store
   * @return the operations
   */
  @Bean
  @ConditionalOnMissingBean
  public InboxOperations inboxOperations(RedisInboxStore store) {
    return new RedisInboxOperations(store);
  }

  /**
   * The scheduled prune: DONE records past each consumer's retention, before Redis expires them.
   *
   * @param store the store
   * @param consumers the known consumers and their retention
   * @param properties the {@code inbox.*} settings
   * @return the pruner, started and stopped with the context
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "inbox.prune.enabled", matchIfMissing = true)
  public InboxPruner inboxPruner(
      RedisInboxStore store, IdempotentConsumers consumers, InboxProperties properties) {
    return new InboxPruner(store, consumers, properties.getPrune().getInterval());
  }

  /** {@code inbox.store=redis}, or no store named, no DataSource and a Lettuce client bean. */
  static final class RedisSelected extends AnyNestedCondition {

    RedisSelected() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnProperty(name = "inbox.store", havingValue = "redis")
    static final class Named {}

    @Conditional(LettuceClientOnly.class)
    static final class Implied {}
  }

  /** No store named, no DataSource, and a Lettuce client bean. */
  static final class LettuceClientOnly extends AllNestedConditions {

    LettuceClientOnly() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    // "redis" or missing: a named jdbc store is not implied away by a Lettuce bean.
    @ConditionalOnProperty(name = "inbox.store", havingValue = "redis", matchIfMissing = true)
    static final class NoOtherStoreNamed {}

    @ConditionalOnMissingBean(DataSource.class)
    static final class NoDataSource {}

    @ConditionalOnBean(AbstractRedisClient.class)
    static final class LettuceClient {}
  }
}
