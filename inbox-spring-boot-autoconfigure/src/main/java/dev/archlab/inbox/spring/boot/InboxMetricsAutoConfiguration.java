package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.micrometer.InboxMetrics;
import dev.archlab.inbox.micrometer.InboxObservations;
import dev.archlab.inbox.micrometer.InboxStatsSource;
import dev.archlab.inbox.operator.InboxOperations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the Inbox meters (docs/METRICS.md) when Micrometer and {@code inbox-micrometer} are on
 * the classpath: an {@link InboxMetrics} binder, which Spring Boot binds to every {@code
 * MeterRegistry} it manages, with store gauges read at most once per {@code
 * inbox.metrics.stats-interval}, and the observation that {@link IdempotentConsumers} attaches to
 * the consumers it builds, which also traces their {@code consume} calls in the application's
 * {@code ObservationRegistry} ({@link InboxObservations}). Off with {@code
 * inbox.metrics.enabled=false}.
 */
@AutoConfiguration(after = {InboxAutoConfiguration.class, InboxRedisAutoConfiguration.class})
@ConditionalOnClass({MeterRegistry.class, InboxMetrics.class})
@ConditionalOnBean(InboxOperations.class)
@ConditionalOnBooleanProperty(name = "inbox.metrics.enabled", matchIfMissing = true)
public class InboxMetricsAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxMetricsAutoConfiguration() {}

  /**
   * The meters, with gauges for the configured consumers from the start.
   *
   * @param operations the store the gauges read
   * @param properties the {@code inbox.*} settings
   * @return the binder
   */
  @Bean
  @ConditionalOnMissingBean
  public InboxMetrics inboxMetrics(InboxOperations operations, InboxProperties properties) {
    return InboxMetrics.builder()
        .stats(InboxStatsSource.of(operations))
        .statsInterval(properties.getMetrics().getStatsInterval())
        .consumers(properties.getConsumers().keySet().toArray(String[]::new))
        .build();
  }

  /**
   * Tracing of deliveries on the application's {@code ObservationRegistry} (none observes nothing):
   * the transactional consumers' {@code consume} calls run in it, and an application gives its
   * {@link InboxObservations#deliveryObserver()} to the {@code KafkaInboxLoop} or {@code
   * RabbitInboxConsumer} it builds.
   *
   * @param registry the application's observation registry, if it has one
   * @return the observations
   */
  @Bean
  @ConditionalOnMissingBean
  public InboxObservations inboxObservations(ObjectProvider<ObservationRegistry> registry) {
    return InboxObservations.builder(registry.getIfUnique(() -> ObservationRegistry.NOOP)).build();
  }

  /**
   * The observation {@link IdempotentConsumers} attaches to its consumers.
   *
   * @param metrics the meters
   * @param observations the tracing of each consume call
   * @return the observation
   */
  @Bean
  @ConditionalOnMissingBean
  public ConsumerObservation inboxConsumerObservation(
      InboxMetrics metrics, InboxObservations observations) {
    return new MicrometerConsumerObservation(metrics, observations);
  }
}
