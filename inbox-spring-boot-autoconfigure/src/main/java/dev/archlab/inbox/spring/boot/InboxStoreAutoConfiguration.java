package dev.archlab.inbox.spring.boot;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Checks {@code inbox.store} at start-up ({@link InboxStoreCheck}), so that naming a store the
 * application cannot have fails with a message that says what is missing.
 */
@AutoConfiguration(before = {InboxAutoConfiguration.class, InboxRedisAutoConfiguration.class})
public class InboxStoreAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxStoreAutoConfiguration() {}

  /**
   * The check; static, as a bean factory post-processor must be, so it runs before any bean of this
   * configuration is created.
   *
   * @param environment where {@code inbox.store} and {@code inbox.redis.url} are read
   * @return the check
   */
  @Bean
  public static BeanFactoryPostProcessor inboxStoreCheck(Environment environment) {
    return new InboxStoreCheck(environment);
  }
}
