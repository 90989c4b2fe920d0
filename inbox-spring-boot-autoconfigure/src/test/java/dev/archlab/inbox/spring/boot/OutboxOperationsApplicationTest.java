package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin.Counts;
import dev.archlab.inbox.outbox.OutboxMessage;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import dev.archlab.inbox.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A whole Spring Boot application with the outbox ({@code inbox.outbox.enabled=true}), its relay
 * running, over real HTTP (Tomcat on a free port, H2 as in the page's other tests): the relay parks
 * a row bound for a topic that does not exist yet; the {@code outbox} Actuator endpoint and the
 * operator page report it, and each puts it back, after which the relay publishes it.
 */
class OutboxOperationsApplicationTest {

  private static final Pattern CSRF =
      Pattern.compile("name=\"inbox-csrf\" content=\"([0-9a-f]+)\"");

  private final HttpClient http = HttpClient.newHttpClient();

  /**
   * A broker on which the topic {@code refunds} is missing until the test creates it: rows bound
   * there are parked DEAD until then, the rest is acknowledged.
   */
  static final class Broker implements OutboxPublisher {
    final AtomicBoolean refundsExists = new AtomicBoolean();

    @Override
    public List<PublishResult> publish(List<OutboxRow> rows) {
      List<PublishResult> out = new ArrayList<>();
      for (OutboxRow row : rows) {
        out.add(
            row.destination().equals("refunds") && !refundsExists.get()
                ? PublishResult.dead("unknown topic 'refunds'")
                : PublishResult.sent());
      }
      return out;
    }

    @Override
    public void close() {}
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration(
      excludeName = {
        // Spring Kafka is on the class path for the listener tests; no broker runs here.
        "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"
      })
  static class App {
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
    Broker broker() {
      return new Broker();
    }
  }

  private static ConfigurableApplicationContext run(String... properties) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.SERVLET)
        .properties(
            "server.port=0",
            "spring.main.banner-mode=off",
            "inbox.prune.enabled=false",
            "inbox.outbox.enabled=true",
            "inbox.ui.enabled=true",
            "management.endpoints.web.exposure.include=health,outbox")
        .properties(properties)
        .run();
  }

  /** pay-1 SENT and refund-1 DEAD, once the running relay has had them. */
  private static Outbox oneSentOneParked(ConfigurableApplicationContext ctx) throws Exception {
    Outbox outbox = ctx.getBean(Outbox.class);
    try (Connection c = ctx.getBean(DataSource.class).getConnection()) {
      outbox.send(c, new OutboxMessage("pay-1", "payments", "c-7", new byte[] {1}, Map.of()));
      outbox.send(c, new OutboxMessage("refund-1", "refunds", "c-7", new byte[] {2}, Map.of()));
    }
    Await.until(
        "the relay sent pay-1 and parked refund-1",
        () -> outbox.admin().counts().equals(new Counts(0, 1, 1)));
    return outbox;
  }

  @Test
  void theActuatorEndpointReportsTheBacklogAndPutsDeadRowsBack() throws Exception {
    // Spring Boot leaves an error's reason out of the answer unless told to include it.
    try (ConfigurableApplicationContext ctx = run("spring.web.error.include-message=always")) {
      Outbox outbox = oneSentOneParked(ctx);

      HttpResponse<String> status = get(ctx, "/actuator/outbox");
      assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
      assertThat(status.body())
          .isEqualTo(
              "{\"table\":\"inbox_outbox\",\"pending\":0,\"sent\":1,\"dead\":1,"
                  + "\"oldestPendingAge\":null}");
      HttpResponse<String> dead = get(ctx, "/actuator/outbox/dead?limit=10");
      assertThat(dead.statusCode()).isEqualTo(200);
      assertThat(dead.body())
          .startsWith("[{\"messageId\":\"refund-1\",\"destination\":\"refunds\",\"key\":\"c-7\",")
          .contains("\"lastError\":\"unknown topic 'refunds'\"")
          .doesNotContain("pay-1");
      HttpResponse<String> lost = get(ctx, "/actuator/outbox/lost");
      assertThat(lost.statusCode()).isEqualTo(400);
      assertThat(lost.body())
          .contains("\"message\":\"unknown outbox state 'lost': use PENDING, SENT or DEAD\"");
      HttpResponse<String> badLimit = get(ctx, "/actuator/outbox/dead?limit=0");
      assertThat(badLimit.statusCode()).isEqualTo(400);
      assertThat(badLimit.body()).contains("a limit from 1 to 10000");
      HttpResponse<String> noIds = postJson(ctx, "/actuator/outbox/retry-dead", "{}");
      assertThat(noIds.statusCode()).isEqualTo(400);
      assertThat(noIds.body()).contains("retry-dead needs messageIds");
      assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 1, 1));

      ctx.getBean(Broker.class).refundsExists.set(true);
      HttpResponse<String> retried =
          postJson(ctx, "/actuator/outbox/retry-dead", "{\"messageIds\":\"refund-1, nope\"}");
      assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
      assertThat(retried.body())
          .isEqualTo(
              "{\"action\":\"retry-dead\",\"retried\":[\"refund-1\"],\"notDead\":[\"nope\"]}");
      Await.until(
          "the relay published refund-1 after the retry",
          () -> outbox.admin().counts().equals(new Counts(0, 2, 0)));
    }
  }

  @Test
  void theOperatorPageShowsTheOutboxAndPutsDeadRowsBackWithItsCsrfToken() throws Exception {
    try (ConfigurableApplicationContext ctx = run()) {
      Outbox outbox = oneSentOneParked(ctx);

      HttpResponse<String> status = get(ctx, "/actuator/inbox-ui/api/outbox");
      assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
      assertThat(status.body())
          .isEqualTo(
              "{\"available\":true,\"table\":\"inbox_outbox\",\"pending\":0,\"sent\":1,"
                  + "\"dead\":1,\"oldestPendingMillis\":null}");
      assertThat(get(ctx, "/actuator/inbox-ui/api/outbox/rows?state=DEAD").body())
          .contains("\"messageId\":\"refund-1\"", "unknown topic 'refunds'");

      URI retry = uri(ctx, "/actuator/inbox-ui/api/outbox/retry-dead");
      HttpResponse<String> forged = postForm(retry, "id=refund-1");
      assertThat(forged.statusCode()).isEqualTo(403);
      assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 1, 1));

      ctx.getBean(Broker.class).refundsExists.set(true);
      Matcher csrf = CSRF.matcher(get(ctx, "/actuator/inbox-ui/").body());
      assertThat(csrf.find()).isTrue();
      HttpResponse<String> done = postForm(retry, "id=refund-1&csrf=" + csrf.group(1));
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      assertThat(done.body()).contains("DEAD outbox row refund-1 is PENDING again");
      Await.until(
          "the relay published refund-1 after the retry",
          () -> outbox.admin().counts().equals(new Counts(0, 2, 0)));
    }
  }

  private HttpResponse<String> get(ConfigurableApplicationContext ctx, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(ctx, path)).timeout(Duration.ofMinutes(2)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> postJson(
      ConfigurableApplicationContext ctx, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(ctx, path))
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> postForm(URI uri, String form) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(ConfigurableApplicationContext ctx, String path) {
    int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
