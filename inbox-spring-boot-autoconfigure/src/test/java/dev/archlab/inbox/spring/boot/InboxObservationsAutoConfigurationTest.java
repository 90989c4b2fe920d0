package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.micrometer.InboxMetrics;
import dev.archlab.inbox.micrometer.InboxObservations;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * With an {@code ObservationRegistry} in the application, a transactional consumer's {@code
 * consume} runs in an {@code inbox.process} observation that continues the message's trace headers
 * and is current while the handler runs; {@link InboxObservations} is a bean for the adapters.
 */
class InboxObservationsAutoConfigurationTest {

  /** Every observation context that stopped, for the assertions. */
  static final class Recording implements ObservationHandler<Observation.Context> {
    final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }

    @Override
    public void onStop(Observation.Context context) {
      stopped.add(context);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Application {
    private final Recording recording = new Recording();

    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(
          "jdbc:h2:mem:"
              + UUID.randomUUID()
              + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
      return ds;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean
    Recording recording() {
      return recording;
    }

    @Bean
    ObservationRegistry observationRegistry(Recording recording) {
      ObservationRegistry registry = ObservationRegistry.create();
      registry.observationConfig().observationHandler(recording);
      return registry;
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  InboxAutoConfiguration.class, InboxMetricsAutoConfiguration.class))
          .withUserConfiguration(Application.class)
          .withPropertyValues("inbox.prune.enabled=false");

  @Test
  void aTransactionalConsumeIsAnObservationCurrentInTheHandlerAndReadingTheTraceHeaders() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasSingleBean(InboxObservations.class);
          ObservationRegistry registry = ctx.getBean(ObservationRegistry.class);
          List<String> seenByHandler = new CopyOnWriteArrayList<>();
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders",
                      (m, a) -> {
                        Observation current = registry.getCurrentObservation();
                        seenByHandler.add(
                            current == null ? "none" : current.getContext().getName());
                      });
          String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

          Outcome outcome =
              orders.consume(
                  new Message("o-1", "orders", new byte[0], Map.of("traceparent", traceparent)));

          assertThat(outcome.status()).isEqualTo(Outcome.Status.APPLIED);
          assertThat(seenByHandler).containsExactly(InboxObservations.PROCESS);
          Observation.Context process =
              ctx.getBean(Recording.class).stopped.stream()
                  .filter(c -> c.getName().equals(InboxObservations.PROCESS))
                  .findFirst()
                  .orElseThrow();
          assertThat(process.getContextualName()).isEqualTo("orders process");
          assertThat(process.getLowCardinalityKeyValues())
              .contains(
                  KeyValue.of("inbox.consumer", "orders"),
                  KeyValue.of("inbox.outcome", "applied"),
                  KeyValue.of("messaging.destination.name", "orders"),
                  KeyValue.of("messaging.operation.type", "process"));
          assertThat(process.getHighCardinalityKeyValues())
              .contains(
                  KeyValue.of("messaging.message.id", "o-1"), KeyValue.of("inbox.attempt", "1"));
          // What a tracing handler's propagator reads the parent from: the message's headers.
          @SuppressWarnings("unchecked")
          ReceiverContext<Object> received = (ReceiverContext<Object>) process;
          assertThat(received.getGetter().get(received.getCarrier(), "traceparent"))
              .isEqualTo(traceparent);
        });
  }

  @Test
  void withoutAnObservationRegistryTheConsumeIsStillTimed() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                InboxAutoConfiguration.class, InboxMetricsAutoConfiguration.class))
        .withUserConfiguration(NoRegistry.class)
        .withPropertyValues("inbox.prune.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(InboxObservations.class);
              assertThat(ctx).doesNotHaveBean(ObservationRegistry.class);
              MeterRegistry meters = new SimpleMeterRegistry();
              ctx.getBean(InboxMetrics.class).bindTo(meters);
              SpringTransactionalConsumer orders =
                  ctx.getBean(InboxConsumers.class).transactional("orders", (m, a) -> {});

              assertThat(orders.consume(Message.of("o-2")).status())
                  .isEqualTo(Outcome.Status.APPLIED);
              assertThat(meters.get("inbox.consume").tag("outcome", "applied").timer().count())
                  .isEqualTo(1);
            });
  }

  @Test
  void aKafkaListenersConsumerWithoutATransactionManagerIsObservedToo() {
    Recording recording = new Recording();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(recording);
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                InboxAutoConfiguration.class, InboxMetricsAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () -> {
              JdbcDataSource ds = new JdbcDataSource();
              ds.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL");
              return ds;
            })
        .withBean(ObservationRegistry.class, () -> registry)
        .withPropertyValues("inbox.prune.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(PlatformTransactionManager.class);
              MeterRegistry meters = new SimpleMeterRegistry();
              ctx.getBean(InboxMetrics.class).bindTo(meters);
              KafkaListenerConsumer listener =
                  new KafkaListenerConsumer(ctx.getBean(InboxConsumers.class), "listened");
              List<String> seen = new CopyOnWriteArrayList<>();

              Outcome outcome =
                  listener.consume(
                      Message.of("l-1"),
                      () -> {
                        Observation current = registry.getCurrentObservation();
                        seen.add(current == null ? "none" : current.getContext().getName());
                      });

              assertThat(outcome.status()).isEqualTo(Outcome.Status.APPLIED);
              assertThat(seen).containsExactly(InboxObservations.PROCESS);
              assertThat(recording.stopped)
                  .extracting(Observation.Context::getName)
                  .containsExactly(InboxObservations.PROCESS);
              assertThat(meters.get("inbox.consume").tag("outcome", "applied").timer().count())
                  .isEqualTo(1);
            });
  }

  /** The application of the first test without its observation registry. */
  @Configuration(proxyBeanMethods = false)
  static class NoRegistry {
    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL");
      return ds;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }
}
