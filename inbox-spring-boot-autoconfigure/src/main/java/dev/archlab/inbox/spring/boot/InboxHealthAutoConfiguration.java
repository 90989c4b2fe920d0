package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.operator.InboxOperations;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The health indicator {@code inbox} ({@link InboxHealthIndicator}) when Spring Boot's health
 * support is on the classpath. Off with {@code management.health.inbox.enabled=false}.
 */
@AutoConfiguration(after = {InboxAutoConfiguration.class, InboxRedisAutoConfiguration.class})
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(InboxOperations.class)
@ConditionalOnBooleanProperty(name = "management.health.inbox.enabled", matchIfMissing = true)
public class InboxHealthAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxHealthAutoConfiguration() {}

  /**
   * The health indicator, named {@code inbox} after its bean name.
   *
   * @param operations the store it checks
   * @param properties the thresholds under {@code inbox.health.*}
   * @return the indicator
   */
  @Bean(name = "inboxHealthIndicator")
  @ConditionalOnMissingBean(name = "inboxHealthIndicator")
  public InboxHealthIndicator inboxHealthIndicator(
      InboxOperations operations, InboxProperties properties) {
    return new InboxHealthIndicator(operations, properties.getHealth());
  }
}
