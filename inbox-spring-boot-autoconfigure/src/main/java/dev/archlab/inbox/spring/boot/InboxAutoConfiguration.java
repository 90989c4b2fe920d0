package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.jdbc.JdbcInboxOperations;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.operator.InboxOperations;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Auto-configures Inbox on the application's single {@link DataSource} (the JDBC store), unless
 * {@code inbox.store} names another store: a {@link JdbcInboxStore} ({@code inbox.table}; the table
 * is created at startup when {@code inbox.create-schema} is true, the default), {@link
 * InboxConsumers} for consumers configured under {@code inbox.consumers.*}, the {@link
 * InboxOperations} that the health indicator, endpoint, meters and operator page read, and a
 * scheduled {@link InboxPruner} ({@code inbox.prune.*}). Every bean backs off when the application
 * defines its own of the same type. {@link InboxRedisAutoConfiguration} is the Redis counterpart.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
      "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration"
    })
@ConditionalOnClass(JdbcInboxStore.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(name = "inbox.store", havingValue = "jdbc", matchIfMissing = true)
@EnableConfigurationProperties(InboxProperties.class)
public class InboxAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxAutoConfiguration() {}

  /**
   * The store on the application's DataSource.
   *
   * @param dataSource the application's DataSource
   * @param properties the {@code inbox.*} settings
   * @return the store, with its table created if configured so
   */
  @Bean
  @ConditionalOnMissingBean
  public JdbcInboxStore inboxStore(DataSource dataSource, InboxProperties properties) {
    JdbcInboxStore store =
        JdbcInboxStore.builder(dataSource)
            .table(properties.getTable())
            .pruneBatchSize(properties.getPruneBatchSize())
            .build();
    if (properties.isCreateSchema()) {
      store.createSchemaIfMissing();
    }
    return store;
  }

  /**
   * Consumers by name, configured from {@code inbox.consumers.*}.
   *
   * @param store the store
   * @param properties the {@code inbox.*} settings
   * @param transactionManager the application's transaction manager, if any
   * @param observation meters for the consumers, if Micrometer is set up
   * @return the consumer factory, closing its consumers with the context
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public InboxConsumers inboxConsumers(
      JdbcInboxStore store,
      InboxProperties properties,
      ObjectProvider<PlatformTransactionManager> transactionManager,
      ObjectProvider<ConsumerObservation> observation) {
    return new InboxConsumers(
        store, properties, transactionManager::getIfUnique, observation::getIfUnique);
  }

  /**
   * What operators and monitoring read and do on the store's table.
   *
   * @param store the store
   * @return the operations
   */
  @Bean
  @ConditionalOnMissingBean
  public InboxOperations inboxOperations(JdbcInboxStore store) {
    return new JdbcInboxOperations(store);
  }

  /**
   * The scheduled prune.
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
      JdbcInboxStore store, InboxConsumers consumers, InboxProperties properties) {
    return new InboxPruner(store, consumers, properties.getPrune().getInterval());
  }
}
