package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.operator.InboxOperations;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The Actuator endpoint {@code inbox} ({@link InboxEndpoint}), created only when it is available
 * (enabled and exposed, as Actuator decides for every endpoint).
 */
@AutoConfiguration(after = {InboxAutoConfiguration.class, InboxRedisAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(InboxOperations.class)
public class InboxActuatorAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxActuatorAutoConfiguration() {}

  /**
   * The endpoint.
   *
   * @param operations the store it reads and acts on
   * @return the endpoint
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public InboxEndpoint inboxEndpoint(InboxOperations operations) {
    return new InboxEndpoint(operations);
  }
}
