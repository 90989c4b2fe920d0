package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxMeters;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRelay;
import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The transactional outbox, with {@code inbox.outbox.enabled=true} and a {@link DataSource}: an
 * {@link Outbox} bean on the application's data source (its table created when missing), the relay
 * that publishes it while the context runs (unless {@code inbox.outbox.relay.enabled=false}), the
 * outbox gauges when Micrometer is there, the health indicator {@code inboxOutbox} (off with {@code
 * management.health.inbox-outbox.enabled=false}), and the Actuator endpoint {@code outbox} ({@link
 * OutboxEndpoint}) when it is available (enabled and exposed, as Actuator decides for every
 * endpoint). The operator page ({@code inbox.ui.enabled=true}) shows the outbox too.
 *
 * <p>The relay publishes through the application's {@link OutboxPublisher} bean, or else through a
 * {@link KafkaOutboxPublisher} on {@code inbox.outbox.relay.bootstrap-servers} (or {@code
 * spring.kafka.bootstrap-servers}); with neither, start-up fails saying what to set. Several
 * instances may run relays on one table: they share the work and keep each key's order.
 */
@AutoConfiguration(after = InboxStoreAutoConfiguration.class)
@ConditionalOnClass(Outbox.class)
@ConditionalOnBooleanProperty(name = "inbox.outbox.enabled")
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(InboxOutboxProperties.class)
public class InboxOutboxAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public InboxOutboxAutoConfiguration() {}

  /**
   * The outbox on the application's data source.
   *
   * @param dataSource where the outbox table lives (the business data's database)
   * @param properties {@code inbox.outbox.*}
   * @return the outbox, its table created if {@code inbox.outbox.create-schema} (the default)
   */
  @Bean
  @ConditionalOnMissingBean
  public Outbox inboxOutbox(DataSource dataSource, InboxOutboxProperties properties) {
    Outbox outbox = Outbox.builder(dataSource).table(properties.getTable()).build();
    if (properties.isCreateSchema()) {
      outbox.createSchemaIfMissing();
    }
    return outbox;
  }

  /**
   * The relay, run by the context's lifecycle.
   *
   * @param outbox the outbox it publishes
   * @param publishers the application's publisher, if it has one
   * @param properties {@code inbox.outbox.relay.*}
   * @param environment for {@code spring.kafka.bootstrap-servers}
   * @return the relay's lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "inbox.outbox.relay.enabled", matchIfMissing = true)
  public OutboxRelayLifecycle inboxOutboxRelay(
      Outbox outbox,
      ObjectProvider<OutboxPublisher> publishers,
      InboxOutboxProperties properties,
      Environment environment) {
    InboxOutboxProperties.Relay relay = properties.getRelay();
    OutboxPublisher publisher = publishers.getIfAvailable();
    if (publisher == null) {
      publisher = kafkaPublisher(relay, environment);
    }
    return new OutboxRelayLifecycle(
        OutboxRelay.builder(outbox, publisher)
            .batchSize(relay.getBatchSize())
            .pollInterval(relay.getPollInterval())
            .retention(relay.getRetention())
            .build());
  }

  private static OutboxPublisher kafkaPublisher(
      InboxOutboxProperties.Relay relay, Environment environment) {
    String servers =
        relay.getBootstrapServers() != null
            ? relay.getBootstrapServers()
            : environment.getProperty("spring.kafka.bootstrap-servers");
    if (servers == null || servers.isBlank()) {
      throw new InvalidConfigurationException(
          "inbox.outbox.enabled=true runs a relay, which needs an OutboxPublisher bean or Kafka:"
              + " set inbox.outbox.relay.bootstrap-servers (or spring.kafka.bootstrap-servers),"
              + " or inbox.outbox.relay.enabled=false on instances that only send");
    }
    try {
      return KafkaOutboxPublisher.builder(servers).build();
    } catch (NoClassDefFoundError e) {
      throw new InvalidConfigurationException(
          "the outbox relay publishes to Kafka but kafka-clients is not on the class path: add"
              + " org.apache.kafka:kafka-clients, or an OutboxPublisher bean");
    }
  }

  /** The outbox gauges, when Micrometer and inbox-micrometer are on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, OutboxMeters.class})
  static class Meters {

    @Bean
    @ConditionalOnMissingBean
    OutboxMeters inboxOutboxMeters(Outbox outbox) {
      return new OutboxMeters(outbox.admin(), outbox.table().value(), Duration.ofSeconds(30));
    }
  }

  /** The endpoint {@code outbox}, when Actuator is there and the endpoint is available. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class ActuatorEndpoint {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    OutboxEndpoint inboxOutboxEndpoint(Outbox outbox) {
      return new OutboxEndpoint(outbox);
    }
  }

  /** The health indicator {@code inboxOutbox}, when Spring Boot's health support is there. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnBooleanProperty(
      name = "management.health.inbox-outbox.enabled",
      matchIfMissing = true)
  static class HealthCheck {

    @Bean(name = "inboxOutboxHealthIndicator")
    @ConditionalOnMissingBean(name = "inboxOutboxHealthIndicator")
    OutboxHealthIndicator inboxOutboxHealthIndicator(
        Outbox outbox, InboxOutboxProperties properties) {
      return new OutboxHealthIndicator(outbox, properties.getHealth());
    }
  }
}
