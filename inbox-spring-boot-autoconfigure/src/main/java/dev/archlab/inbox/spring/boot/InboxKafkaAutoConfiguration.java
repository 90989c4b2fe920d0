package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.kafka.KafkaIds;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaOperations;

/**
 * Idempotent {@code @KafkaListener}s ({@link InboxKafkaListeners}) when the application has both
 * the Inbox Kafka adapter ({@code inbox-kafka}) and Spring for Apache Kafka. A listener opts in
 * with one property naming its listener id:
 *
 * <pre>
 * inbox.kafka.listeners.orders-listener.consumer=orders
 * </pre>
 */
@AutoConfiguration(
    after = InboxAutoConfiguration.class,
    afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaIds.class, KafkaListenerEndpointRegistry.class})
@ConditionalOnBean(InboxConsumers.class)
public class InboxKafkaAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxKafkaAutoConfiguration() {}

  /**
   * Wraps the configured listeners before their containers start.
   *
   * @param consumers builds each listener's inbox consumer
   * @param properties the listeners under {@code inbox.kafka.listeners.*}
   * @param registry Spring Kafka's listener containers
   * @param template publishes dead letters
   * @return the lifecycle bean that wraps them
   */
  @Bean
  @ConditionalOnMissingBean
  public InboxKafkaListeners inboxKafkaListeners(
      InboxConsumers consumers,
      InboxProperties properties,
      ObjectProvider<KafkaListenerEndpointRegistry> registry,
      ObjectProvider<KafkaOperations<?, ?>> template) {
    return new InboxKafkaListeners(
        consumers,
        properties.getKafka().getListeners(),
        registry::getIfUnique,
        template::getIfUnique);
  }
}
