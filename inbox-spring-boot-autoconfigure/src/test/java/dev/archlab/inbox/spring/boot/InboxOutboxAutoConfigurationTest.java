package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxMessage;
import dev.archlab.inbox.outbox.OutboxMeters;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import dev.archlab.inbox.testkit.Await;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code inbox.outbox.enabled=true}: the outbox, its relay in the lifecycle, gauges and health. */
class InboxOutboxAutoConfigurationTest {

  @Configuration(proxyBeanMethods = false)
  static class H2 {
    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
      return ds;
    }
  }

  /** Answers SENT for every row and remembers the ids, in publish order. */
  static final class Recording implements OutboxPublisher {
    final List<String> published = new CopyOnWriteArrayList<>();
    volatile boolean closed;

    @Override
    public List<PublishResult> publish(List<OutboxRow> rows) {
      List<PublishResult> out = new ArrayList<>();
      for (OutboxRow r : rows) {
        published.add(r.id());
        out.add(PublishResult.sent());
      }
      return out;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Publisher {
    @Bean
    Recording recording() {
      return new Recording();
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  InboxStoreAutoConfiguration.class,
                  InboxAutoConfiguration.class,
                  InboxOutboxAutoConfiguration.class))
          .withPropertyValues("inbox.prune.enabled=false");

  @Test
  void offUnlessEnabled() {
    runner
        .withUserConfiguration(H2.class, Publisher.class)
        .run(ctx -> assertThat(ctx).doesNotHaveBean(Outbox.class));
  }

  @Test
  void theRelayPublishesWhatATransactionSentWhileTheContextRunsAndClosesItsPublisher() {
    runner
        .withUserConfiguration(H2.class, Publisher.class)
        .withPropertyValues("inbox.outbox.enabled=true")
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(Outbox.class).hasSingleBean(OutboxRelayLifecycle.class);
              assertThat(ctx.getBean(OutboxRelayLifecycle.class).isRunning()).isTrue();
              Outbox outbox = ctx.getBean(Outbox.class);
              try (Connection c = ctx.getBean(DataSource.class).getConnection()) {
                outbox.send(
                    c, new OutboxMessage("pay-1", "payments", "k", new byte[] {1}, Map.of()));
              }
              Recording publisher = ctx.getBean(Recording.class);
              Await.until("the relay published pay-1", () -> publisher.published.contains("pay-1"));
              Await.until("pay-1 SENT", () -> outbox.admin().counts().sent() == 1);
              ctx.close();
              assertThat(publisher.closed).isTrue();
            });
  }

  @Test
  void healthShowsTheBacklogAndListsDeadRowsUnderAttention() {
    runner
        .withUserConfiguration(H2.class)
        .withPropertyValues("inbox.outbox.enabled=true", "inbox.outbox.relay.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(OutboxRelayLifecycle.class);
              Outbox outbox = ctx.getBean(Outbox.class);
              DataSource ds = ctx.getBean(DataSource.class);
              try (Connection c = ds.getConnection()) {
                outbox.send(
                    c, new OutboxMessage("pay-1", "payments", "k", new byte[] {1}, Map.of()));
                outbox.send(
                    c, new OutboxMessage("pay-2", "payments", "k", new byte[] {1}, Map.of()));
                try (Statement st = c.createStatement()) {
                  st.execute("UPDATE inbox_outbox SET state = 'DEAD' WHERE message_id = 'pay-2'");
                }
              }
              Health health = ctx.getBean(OutboxHealthIndicator.class).health();
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails())
                  .containsEntry("pending", 1L)
                  .containsEntry("dead", 1L)
                  .containsKey("attention");
              assertThat(ctx).hasSingleBean(OutboxMeters.class);
            });
  }

  @Test
  void downOnThresholdMakesDeadRowsDownAndAMissingTableIsDown() {
    runner
        .withUserConfiguration(H2.class)
        .withPropertyValues(
            "inbox.outbox.enabled=true",
            "inbox.outbox.relay.enabled=false",
            "inbox.outbox.health.down-on-threshold=true")
        .run(
            ctx -> {
              try (Connection c = ctx.getBean(DataSource.class).getConnection();
                  Statement st = c.createStatement()) {
                ctx.getBean(Outbox.class)
                    .send(c, new OutboxMessage("p", "payments", "k", new byte[] {1}, Map.of()));
                st.execute("UPDATE inbox_outbox SET state = 'DEAD'");
                assertThat(ctx.getBean(OutboxHealthIndicator.class).health().getStatus())
                    .isEqualTo(Status.DOWN);
                st.execute("DROP TABLE inbox_outbox");
              }
              Health health = ctx.getBean(OutboxHealthIndicator.class).health();
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails()).containsEntry("table", "inbox_outbox");
            });
  }

  @Test
  void theOutboxEndpointIsThereOnlyWhenExposedAndRefusesBadInputSayingWhy() {
    ApplicationContextRunner outbox =
        runner
            .withUserConfiguration(H2.class)
            .withPropertyValues("inbox.outbox.enabled=true", "inbox.outbox.relay.enabled=false");
    outbox.run(ctx -> assertThat(ctx).doesNotHaveBean(OutboxEndpoint.class));
    outbox
        .withPropertyValues("management.endpoints.web.exposure.include=outbox")
        .run(
            ctx -> {
              OutboxEndpoint endpoint = ctx.getBean(OutboxEndpoint.class);
              try (Connection c = ctx.getBean(DataSource.class).getConnection();
                  Statement st = c.createStatement()) {
                ctx.getBean(Outbox.class)
                    .send(c, new OutboxMessage("p", "payments", "k", new byte[] {1}, Map.of()));
                st.execute("UPDATE inbox_outbox SET state = 'DEAD'");
              }
              assertThat(endpoint.status())
                  .containsEntry("table", "inbox_outbox")
                  .containsEntry("dead", 1L)
                  .containsEntry("oldestPendingAge", null);
              assertThatThrownBy(() -> endpoint.rows("lost", null))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessage("unknown outbox state 'lost': use PENDING, SENT or DEAD");
              assertThatThrownBy(() -> endpoint.rows("dead", 0))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessageContaining("a limit from 1 to 10000");
              assertThatThrownBy(() -> endpoint.act("explode", "p"))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessage("unknown action 'explode': use retry-dead");
              assertThatThrownBy(() -> endpoint.act("retry-dead", " , "))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessageStartingWith("retry-dead needs messageIds");
              assertThatThrownBy(() -> endpoint.act("retry-dead", "p,bad" + (char) 1 + "id"))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessageContaining("invalid message id");
              // Every refusal left the DEAD row as it was.
              assertThat(endpoint.rows("DEAD", null))
                  .extracting(r -> r.get("messageId"))
                  .containsExactly("p");
              assertThat(endpoint.act("retry-dead", "p"))
                  .containsEntry("retried", List.of("p"))
                  .containsEntry("notDead", List.of());
              assertThat(endpoint.rows("pending", null)).hasSize(1);
            });
    outbox
        .withPropertyValues(
            "management.endpoints.web.exposure.include=outbox",
            // The binder would take "none"; this bare context converts enums by name only.
            "management.endpoint.outbox.access=NONE")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(OutboxEndpoint.class));
  }

  @Test
  void aRelayWithNeitherPublisherNorKafkaFailsAtStartUpSayingWhatToSet() {
    runner
        .withUserConfiguration(H2.class)
        .withPropertyValues("inbox.outbox.enabled=true")
        .run(
            ctx ->
                assertThat(ctx)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("inbox.outbox.relay.bootstrap-servers")
                    .hasMessageContaining("inbox.outbox.relay.enabled=false"));
  }

  @Test
  void kafkaServersMakeAKafkaRelay() {
    runner
        .withUserConfiguration(H2.class)
        .withPropertyValues(
            "inbox.outbox.enabled=true", "spring.kafka.bootstrap-servers=127.0.0.1:1")
        .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(OutboxRelayLifecycle.class));
  }
}
