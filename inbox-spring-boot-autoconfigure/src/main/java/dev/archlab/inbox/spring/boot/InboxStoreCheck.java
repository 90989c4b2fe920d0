package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InvalidConfigurationException;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Refuses, before any bean is created, an {@code inbox.store} that cannot be served: an unknown
 * name, a store whose module is not on the class path, JDBC without a DataSource, Redis without
 * {@code inbox.redis.url} or a Lettuce client bean. Without this check such an application would
 * start with no inbox beans at all (each store's auto-configuration quietly backs off) and fail
 * later, far from the cause. With {@code inbox.store} unset it checks nothing: the store then
 * follows from what the application has, as before.
 */
final class InboxStoreCheck implements BeanFactoryPostProcessor {

  static final String REDIS_WHERE =
      "inbox.store=redis needs to know where Redis is: set inbox.redis.url"
          + " (redis://host:port) or define a Lettuce RedisClient or RedisClusterClient bean";

  private static final String JDBC_STORE = "dev.archlab.inbox.jdbc.JdbcInboxStore";
  private static final String REDIS_STORE = "dev.archlab.inbox.redis.RedisInboxStore";
  private static final String LETTUCE_CLIENT = "io.lettuce.core.AbstractRedisClient";
  private static final String OWN_CONFIGURATIONS = InboxStoreCheck.class.getPackageName() + ".";

  private final Environment environment;

  InboxStoreCheck(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) {
    String store = environment.getProperty("inbox.store");
    if (store == null) {
      return;
    }
    ClassLoader loader = beans.getBeanClassLoader();
    // Case-insensitive, as the @ConditionalOnProperty that picks the store compares.
    switch (store.toLowerCase(Locale.ROOT)) {
      case "jdbc" -> {
        requireModule(loader, JDBC_STORE, "jdbc", "inbox-jdbc");
        if (beans.getBeanNamesForType(DataSource.class, true, false).length == 0
            && !applicationHasBean(beans, loader, JDBC_STORE)) {
          throw new InvalidConfigurationException(
              "inbox.store=jdbc needs a DataSource bean (spring.datasource.url, or your own"
                  + " DataSource); the application has none");
        }
      }
      case "redis" -> {
        requireModule(loader, REDIS_STORE, "redis", "inbox-redis");
        String url = environment.getProperty("inbox.redis.url");
        if ((url == null || url.isBlank())
            && !applicationHasBean(beans, loader, LETTUCE_CLIENT)
            && !applicationHasBean(beans, loader, REDIS_STORE)) {
          throw new InvalidConfigurationException(REDIS_WHERE);
        }
      }
      default ->
          throw new InvalidConfigurationException(
              "inbox.store must be jdbc or redis, was '" + store + "'");
    }
  }

  private static void requireModule(
      ClassLoader loader, String storeClass, String store, String module) {
    if (!ClassUtils.isPresent(storeClass, loader)) {
      throw new InvalidConfigurationException(
          "inbox.store="
              + store
              + " needs "
              + module
              + " on the class path (dependency dev.archlab.inbox:"
              + module
              + "); "
              + storeClass
              + " was not found");
    }
  }

  /**
   * Whether a bean of {@code type} is defined other than by this starter's own auto-configuration
   * (whose store beans exist as definitions whether or not they could be built).
   */
  private static boolean applicationHasBean(
      ConfigurableListableBeanFactory beans, ClassLoader loader, String type) {
    if (!ClassUtils.isPresent(type, loader)) {
      return false;
    }
    Class<?> typeClass = ClassUtils.resolveClassName(type, loader);
    for (String name : beans.getBeanNamesForType(typeClass, true, false)) {
      String factory =
          beans.containsBeanDefinition(name)
              ? beans.getBeanDefinition(name).getFactoryBeanName()
              : null;
      // Auto-configuration beans are named after their configuration class.
      if (factory == null || !factory.startsWith(OWN_CONFIGURATIONS)) {
        return true;
      }
    }
    return false;
  }
}
