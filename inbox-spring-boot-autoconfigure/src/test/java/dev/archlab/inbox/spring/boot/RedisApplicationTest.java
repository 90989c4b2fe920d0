package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.operator.InboxOperations;
import dev.archlab.inbox.redis.RedisInboxOperations;
import dev.archlab.inbox.redis.RedisInboxStore;
import dev.archlab.inbox.redis.RedisServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A whole Spring Boot application on Redis, with no DataSource: every auto-configuration on the
 * class path, the store at {@code inbox.redis.url} on a real {@code redis-server} (the one
 * inbox-redis's tests start). It consumes, and over real HTTP reports health, meters, the {@code
 * inbox} endpoint and the operator page, and acts through the endpoint.
 */
class RedisApplicationTest {

  private static final Pattern CSRF =
      Pattern.compile("name=\"inbox-csrf\" content=\"([0-9a-f]+)\"");

  private final HttpClient http = HttpClient.newHttpClient();

  @SpringBootConfiguration
  @EnableAutoConfiguration(
      excludeName = {
        // The test class path holds H2 for the JDBC tests, of which Boot would make a DataSource;
        // this application has none, as a Redis-only application would not.
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        // Spring Kafka is on the class path for the listener tests; no broker runs here.
        "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"
      })
  static class RedisApp {}

  @Test
  void consumesAndServesHealthMetersEndpointAndOperatorPage() throws Exception {
    String prefix = "boot" + ProcessHandle.current().pid() + ":";
    try (ConfigurableApplicationContext ctx =
        new SpringApplicationBuilder(RedisApp.class)
            .web(WebApplicationType.SERVLET)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "inbox.store=redis",
                "inbox.redis.url=redis://127.0.0.1:" + RedisServers.standalone().port(),
                "inbox.redis.key-prefix=" + prefix,
                "inbox.consumers.payments.max-attempts=1",
                "inbox.ui.enabled=true",
                "management.endpoints.web.exposure.include=health,inbox,metrics",
                "management.endpoint.health.show-details=always")
            .run()) {
      assertThat(ctx.getBeanNamesForType(DataSource.class)).isEmpty();
      assertThat(ctx.getBean(InboxOperations.class)).isInstanceOf(RedisInboxOperations.class);
      assertThat(ctx.getBeanNamesForType(InboxPruner.class)).hasSize(1);

      IdempotentConsumers consumers = ctx.getBean(IdempotentConsumers.class);
      assertThat(consumers).isNotInstanceOf(InboxConsumers.class);
      IdempotentConsumer orders = consumers.idempotent("orders", (m, a) -> {});
      assertThat(orders.consume(Message.of("order-1")).status()).isEqualTo(Outcome.Status.APPLIED);
      assertThat(orders.consume(Message.of("order-1")).status())
          .isEqualTo(Outcome.Status.DUPLICATE);
      assertThat(orders.consume(Message.of("order-1")).status())
          .isEqualTo(Outcome.Status.DUPLICATE);
      IdempotentConsumer payments =
          consumers.idempotent(
              "payments",
              (m, a) -> {
                throw new IllegalStateException("card declined");
              });
      assertThat(payments.consume(Message.of("pay-1")).status()).isEqualTo(Outcome.Status.DEAD);

      HttpResponse<String> health = get(ctx, "/actuator/health");
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(health.body())
          .contains("\"store\":\"Redis key prefix '" + prefix + "'\"")
          .contains("\"orders\":{\"processing\":0,\"done\":1,\"dead\":0,")
          .contains("payments: 1 DEAD records");

      assertThat(get(ctx, "/actuator/metrics/inbox.deliveries?tag=consumer:orders").body())
          .contains("{\"tag\":\"outcome\",\"values\":[")
          .contains("\"value\":3.0");
      assertThat(
              get(
                      ctx,
                      "/actuator/metrics/inbox.deliveries?tag=consumer:orders&tag=outcome:duplicate")
                  .body())
          .contains("\"value\":2.0");
      assertThat(
              get(ctx, "/actuator/metrics/inbox.records?tag=consumer:orders&tag=state:done").body())
          .contains("\"value\":1.0");
      assertThat(
              get(ctx, "/actuator/metrics/inbox.records?tag=consumer:payments&tag=state:dead")
                  .body())
          .contains("\"value\":1.0");

      assertThat(get(ctx, "/actuator/inbox").body())
          .contains("\"store\":\"Redis key prefix '" + prefix + "'\"")
          .contains("{\"consumer\":\"orders\",\"processing\":0,\"done\":1,\"dead\":0,");
      assertThat(get(ctx, "/actuator/inbox/dead?consumer=payments").body())
          .contains("\"messageId\":\"pay-1\"")
          .contains("card declined");

      HttpResponse<String> page = get(ctx, "/actuator/inbox-ui/");
      assertThat(page.statusCode()).isEqualTo(200);
      Matcher csrf = CSRF.matcher(page.body());
      assertThat(csrf.find()).as(page.body()).isTrue();
      assertThat(get(ctx, "/actuator/inbox-ui/api/overview").body())
          .contains("\"location\":\"Redis key prefix '" + prefix + "'\"")
          .contains("{\"consumer\":\"orders\",\"processing\":0,\"done\":1,\"dead\":0,");

      HttpResponse<String> retried =
          post(
              ctx,
              "/actuator/inbox-ui/api/retry-dead",
              "application/x-www-form-urlencoded",
              "consumer=payments&id=pay-1&csrf=" + csrf.group(1));
      assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
      RedisInboxStore store = ctx.getBean(RedisInboxStore.class);
      assertThat(store.find("payments", "pay-1")).isEmpty();
      assertThat(store.find("orders", "order-1").orElseThrow().state()).isEqualTo(RecordState.DONE);
    }
  }

  private HttpResponse<String> get(ConfigurableApplicationContext ctx, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(ctx, path)).timeout(Duration.ofMinutes(2)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(
      ConfigurableApplicationContext ctx, String path, String type, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(ctx, path))
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", type)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(ConfigurableApplicationContext ctx, String path) {
    int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
