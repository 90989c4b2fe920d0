package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The health indicator and the {@code inbox} endpoint on records put in each state on purpose: a
 * DEAD record and an expired lease are reported as details (DOWN only when asked for), the endpoint
 * exists only when exposed, and its POST actions release a lease and retry DEAD records.
 */
class InboxActuatorTest {

  @Configuration(proxyBeanMethods = false)
  static class H2 {
    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(
          "jdbc:h2:mem:"
              + UUID.randomUUID()
              + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
      return ds;
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  InboxAutoConfiguration.class,
                  InboxHealthAutoConfiguration.class,
                  InboxActuatorAutoConfiguration.class))
          .withUserConfiguration(H2.class)
          .withPropertyValues(
              "inbox.prune.enabled=false",
              "inbox.consumers.payments.max-attempts=1",
              // A failed attempt waits an hour for its retry: its lease is then moved back.
              "inbox.consumers.orders.backoff.initial-delay=1h",
              "inbox.consumers.orders.backoff.max-delay=1h",
              "inbox.consumers.orders.backoff.jitter=0");

  /** One DEAD payment and one order whose lease has expired (its owner would have died). */
  private static void deadPaymentAndStuckOrder(AssertableApplicationContext ctx) {
    InboxConsumers consumers = ctx.getBean(InboxConsumers.class);
    IdempotentConsumer payments =
        consumers.idempotent(
            "payments",
            (m, a) -> {
              throw new IllegalStateException("card declined");
            });
    assertThat(payments.consume(Message.of("pay-1")).status()).isEqualTo(Outcome.Status.DEAD);
    IdempotentConsumer orders =
        consumers.idempotent(
            "orders",
            (m, a) -> {
              throw new IllegalStateException("warehouse down");
            });
    assertThat(orders.consume(Message.of("order-1")).status()).isEqualTo(Outcome.Status.FAILED);
    new JdbcTemplate(ctx.getBean(DataSource.class))
        .update(
            "UPDATE inbox SET lease_until = lease_until - INTERVAL '2' HOUR"
                + " WHERE message_id = 'order-1'");
  }

  private static Health health(AssertableApplicationContext ctx) {
    return ctx.getBean(InboxHealthIndicator.class).health();
  }

  @Test
  void overThresholdsIsADetailAndStaysUpByDefault() {
    runner.run(
        ctx -> {
          deadPaymentAndStuckOrder(ctx);
          Health health = health(ctx);
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          @SuppressWarnings("unchecked")
          List<String> attention = (List<String>) health.getDetails().get("attention");
          assertThat(attention)
              .containsExactlyInAnyOrder("payments: 1 DEAD records", "orders: 1 stuck leases");
          @SuppressWarnings("unchecked")
          Map<String, Map<String, Object>> consumers =
              (Map<String, Map<String, Object>>) health.getDetails().get("consumers");
          assertThat(consumers.get("orders")).containsEntry("stuckLeases", 1L);
          assertThat(consumers.get("payments")).containsEntry("dead", 1L);
        });
  }

  @Test
  void overThresholdsIsDownWhenAskedFor() {
    runner
        .withPropertyValues("inbox.health.down-on-threshold=true")
        .run(
            ctx -> {
              assertThat(health(ctx).getStatus()).isEqualTo(Status.UP);
              deadPaymentAndStuckOrder(ctx);
              Health health = health(ctx);
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails()).containsKey("attention");
            });
  }

  @Test
  void underThresholdsNothingNeedsAttention() {
    runner
        .withPropertyValues(
            "inbox.health.down-on-threshold=true",
            "inbox.health.dead-threshold=2",
            "inbox.health.stuck-leases-threshold=2")
        .run(
            ctx -> {
              deadPaymentAndStuckOrder(ctx);
              Health health = health(ctx);
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails()).doesNotContainKey("attention");
            });
  }

  @Test
  void unreadableTableIsDown() {
    runner
        .withPropertyValues("inbox.create-schema=false")
        .run(ctx -> assertThat(health(ctx).getStatus()).isEqualTo(Status.DOWN));
  }

  @Test
  void healthCanBeSwitchedOff() {
    runner
        .withPropertyValues("management.health.inbox.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(InboxHealthIndicator.class));
  }

  @Test
  void endpointIsOffUnlessExposed() {
    runner.run(ctx -> assertThat(ctx).doesNotHaveBean(InboxEndpoint.class));
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=health")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(InboxEndpoint.class));
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=inbox")
        .run(ctx -> assertThat(ctx).hasSingleBean(InboxEndpoint.class));
    runner
        .withPropertyValues(
            "management.endpoints.web.exposure.include=inbox",
            // The binder would take "none"; this bare context converts enums by name only.
            "management.endpoint.inbox.access=NONE")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(InboxEndpoint.class));
  }

  @Test
  void postReleaseEndsALeaseSoTheMessageRunsAgainNow() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=inbox")
        .run(
            ctx -> {
              AtomicBoolean fail = new AtomicBoolean(true);
              IdempotentConsumer orders =
                  ctx.getBean(InboxConsumers.class)
                      .idempotent(
                          "orders",
                          (m, a) -> {
                            if (fail.get()) {
                              throw new IllegalStateException("warehouse down");
                            }
                          });
              assertThat(orders.consume(Message.of("order-1")).status())
                  .isEqualTo(Outcome.Status.FAILED);
              fail.set(false);
              // The retry is an hour away: until then the message is held.
              assertThat(orders.consume(Message.of("order-1")).status())
                  .isEqualTo(Outcome.Status.IN_FLIGHT);

              InboxEndpoint endpoint = ctx.getBean(InboxEndpoint.class);
              assertThat(endpoint.records("processing", "orders", null))
                  .extracting(r -> r.get("messageId"))
                  .containsExactly("order-1");
              Map<String, Object> released = endpoint.act("orders", "release", "order-1, nope");
              assertThat(released).containsEntry("released", List.of("order-1"));

              assertThat(orders.consume(Message.of("order-1")).status())
                  .isEqualTo(Outcome.Status.APPLIED);
              assertThat(endpoint.records("PROCESSING", "orders", null)).isEmpty();
            });
  }

  @Test
  void postRetryDeadForgetsDeadRecordsSoTheyRunAfresh() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=inbox")
        .run(
            ctx -> {
              deadPaymentAndStuckOrder(ctx);
              InboxEndpoint endpoint = ctx.getBean(InboxEndpoint.class);
              assertThat(endpoint.records("dead", null, null))
                  .extracting(r -> r.get("messageId"))
                  .containsExactly("pay-1");

              assertThat(endpoint.act("payments", "retry-dead", null)).containsEntry("retried", 1L);
              JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
              assertThat(store.find("payments", "pay-1")).isEmpty();
              assertThat(endpoint.records("dead", null, null)).isEmpty();
              // The stuck order is not DEAD: retry-dead leaves it alone.
              assertThat(store.find("orders", "order-1").get().state())
                  .isEqualTo(RecordState.PROCESSING);

              IdempotentConsumer payments =
                  ctx.getBean(InboxConsumers.class).idempotent("payments", (m, a) -> {});
              assertThat(payments.consume(Message.of("pay-1")).status())
                  .isEqualTo(Outcome.Status.APPLIED);
            });
  }

  @Test
  void badRequestsChangeNothing() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=inbox")
        .run(
            ctx -> {
              deadPaymentAndStuckOrder(ctx);
              InboxEndpoint endpoint = ctx.getBean(InboxEndpoint.class);
              assertThatThrownBy(() -> endpoint.act("payments", "explode", null))
                  .isInstanceOf(InvalidEndpointRequestException.class);
              assertThatThrownBy(() -> endpoint.act("orders", "release", " "))
                  .isInstanceOf(InvalidEndpointRequestException.class);
              assertThatThrownBy(() -> endpoint.records("gone", null, null))
                  .isInstanceOf(InvalidEndpointRequestException.class);
              assertThat(endpoint.records("dead", "payments", null)).hasSize(1);
              assertThat(endpoint.records("processing", "orders", null)).hasSize(1);
            });
  }
}
