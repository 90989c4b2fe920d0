package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.micrometer.InboxMetrics;
import dev.archlab.inbox.outbox.Outbox;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The operator page served by the application over real HTTP (Tomcat on a free port): under the
 * Actuator base path when {@code inbox.ui.enabled=true}, absent by default; a forged action is
 * refused and changes nothing, an action with the page's CSRF token changes the database.
 */
class InboxUiTest {

  private static final Pattern CSRF =
      Pattern.compile("name=\"inbox-csrf\" content=\"([0-9a-f]+)\"");

  private final HttpClient http = HttpClient.newHttpClient();

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    TomcatServletWebServerAutoConfiguration.class,
    InboxAutoConfiguration.class,
    InboxUiAutoConfiguration.class
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
  }

  /**
   * The application with the Inbox meters and a meter registry they are bound to, as Spring Boot's
   * metrics auto-configuration binds every {@code MeterBinder} to the registry it manages; and a
   * transaction manager, for the transactional consumer among the kinds the chart counts.
   */
  @Configuration(proxyBeanMethods = false)
  @Import(App.class)
  @ImportAutoConfiguration(InboxMetricsAutoConfiguration.class)
  static class AppWithMetrics {
    @Bean
    MeterRegistry meterRegistry(InboxMetrics metrics) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      metrics.bindTo(registry);
      return registry;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }

  private static ConfigurableApplicationContext run(String... properties) {
    return run(App.class, properties);
  }

  private static ConfigurableApplicationContext run(Class<?> app, String... properties) {
    return new SpringApplicationBuilder(app)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "inbox.prune.enabled=false", "spring.main.banner-mode=off")
        .properties(properties)
        .run();
  }

  private static URI base(ConfigurableApplicationContext ctx, String path) {
    int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(2)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(URI uri, String form) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesThePageUnderTheActuatorBasePathAndActsOnlyWithItsCsrfToken() throws Exception {
    try (ConfigurableApplicationContext ctx =
        run(
            "inbox.ui.enabled=true",
            "management.endpoints.web.base-path=/manage",
            "inbox.consumers.payments.max-attempts=1")) {
      IdempotentConsumer payments =
          ctx.getBean(InboxConsumers.class)
              .idempotent(
                  "payments",
                  (m, a) -> {
                    throw new IllegalStateException("card declined");
                  });
      assertThat(payments.consume(Message.of("pay-1")).status()).isEqualTo(Outcome.Status.DEAD);
      JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);

      HttpResponse<String> bare = get(base(ctx, "/manage/inbox-ui"));
      assertThat(bare.statusCode()).isEqualTo(302);
      assertThat(bare.headers().firstValue("Location"))
          .hasValueSatisfying(l -> assertThat(l).endsWith("/manage/inbox-ui/"));
      HttpResponse<String> page = get(base(ctx, "/manage/inbox-ui/"));
      assertThat(page.statusCode()).isEqualTo(200);
      Matcher csrf = CSRF.matcher(page.body());
      assertThat(csrf.find()).as(page.body()).isTrue();
      assertThat(get(base(ctx, "/manage/inbox-ui/app.js")).body()).contains("inbox-csrf");

      HttpResponse<String> overview = get(base(ctx, "/manage/inbox-ui/api/overview"));
      assertThat(overview.body())
          .contains("\"location\":\"table inbox\"")
          .contains("{\"consumer\":\"payments\",\"processing\":0,\"done\":0,\"dead\":1,");
      HttpResponse<String> badLimit =
          get(base(ctx, "/manage/inbox-ui/api/records?state=DEAD&limit=0"));
      assertThat(badLimit.statusCode()).isEqualTo(400);
      assertThat(badLimit.body()).contains("limit must be a whole number from 1 to 1000");

      URI retry = base(ctx, "/manage/inbox-ui/api/retry-dead");
      HttpResponse<String> forged = post(retry, "consumer=payments&id=pay-1");
      assertThat(forged.statusCode()).isEqualTo(403);
      assertThat(forged.body()).contains("missing or wrong CSRF token");
      assertThat(store.find("payments", "pay-1").orElseThrow().state()).isEqualTo(RecordState.DEAD);

      HttpResponse<String> done = post(retry, "consumer=payments&id=pay-1&csrf=" + csrf.group(1));
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      assertThat(store.find("payments", "pay-1")).isEmpty();
    }
  }

  @Test
  void outcomesOfEveryConsumerKindComeFromTheMetersWhenTheApplicationHasThem() throws Exception {
    try (ConfigurableApplicationContext ctx =
        run(
            AppWithMetrics.class,
            "inbox.ui.enabled=true",
            "inbox.consumers.orders.max-attempts=3",
            "inbox.consumers.sms.max-attempts=1")) {
      InboxConsumers consumers = ctx.getBean(InboxConsumers.class);
      SpringTransactionalConsumer orders = consumers.transactional("orders", (m, a) -> {});
      assertThat(orders.consume(Message.of("order-1")).status()).isEqualTo(Outcome.Status.APPLIED);
      assertThat(orders.consume(Message.of("order-1")).status())
          .isEqualTo(Outcome.Status.DUPLICATE);
      assertThat(orders.consume(Message.of("order-2")).status()).isEqualTo(Outcome.Status.APPLIED);
      // Consumers the caller calls directly, with no timer around them, are counted too.
      IdempotentConsumer sms =
          consumers.idempotent(
              "sms",
              (m, a) -> {
                throw new IllegalStateException("gateway refused");
              });
      assertThat(sms.consume(Message.of("sms-1")).status()).isEqualTo(Outcome.Status.DEAD);
      OneCommitConsumer audit = consumers.oneCommit("audit", (m, a, c) -> {});
      assertThat(audit.consume(Message.of("audit-1")).status()).isEqualTo(Outcome.Status.APPLIED);

      HttpResponse<String> outcomes = get(base(ctx, "/actuator/inbox-ui/api/outcomes"));
      assertThat(outcomes.statusCode()).as(outcomes.body()).isEqualTo(200);
      assertThat(outcomes.body())
          .startsWith("{\"available\":true,\"consumers\":{")
          .contains("\"orders\":{\"applied\":2,\"dead\":0,\"duplicate\":1,")
          .contains("\"sms\":{\"applied\":0,\"dead\":1,")
          .contains("\"audit\":{\"applied\":1,");
    }
  }

  @Test
  void outcomesAreUnavailableWithoutMeters() throws Exception {
    try (ConfigurableApplicationContext ctx = run("inbox.ui.enabled=true")) {
      HttpResponse<String> outcomes = get(base(ctx, "/actuator/inbox-ui/api/outcomes"));
      assertThat(outcomes.statusCode()).isEqualTo(200);
      assertThat(outcomes.body()).isEqualTo("{\"available\":false}");
    }
  }

  @Test
  void theOutboxPanelIsUnavailableWithoutAnOutbox() throws Exception {
    try (ConfigurableApplicationContext ctx = run("inbox.ui.enabled=true")) {
      HttpResponse<String> outbox = get(base(ctx, "/actuator/inbox-ui/api/outbox"));
      assertThat(outbox.statusCode()).isEqualTo(200);
      assertThat(outbox.body()).isEqualTo("{\"available\":false}");
    }
  }

  @Test
  void thePageTakesTheOutboxBeanOnlyWhenInboxOutboxIsOnTheClassPath() {
    WebApplicationContextRunner runner =
        new WebApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    InboxStoreAutoConfiguration.class,
                    InboxAutoConfiguration.class,
                    InboxOutboxAutoConfiguration.class,
                    InboxUiAutoConfiguration.class))
            .withUserConfiguration(InboxOutboxAutoConfigurationTest.H2.class)
            .withPropertyValues(
                "inbox.prune.enabled=false",
                "inbox.ui.enabled=true",
                "inbox.outbox.enabled=true",
                "inbox.outbox.relay.enabled=false");
    runner.run(
        ctx ->
            assertThat(ctx)
                .hasNotFailed()
                .hasBean("inboxUiServlet")
                .hasSingleBean(InboxUiOutbox.class));
    runner
        .withClassLoader(new FilteredClassLoader(Outbox.class))
        .run(
            ctx ->
                assertThat(ctx)
                    .hasNotFailed()
                    .hasBean("inboxUiServlet")
                    .doesNotHaveBean(Outbox.class)
                    .doesNotHaveBean(InboxUiOutbox.class));
  }

  @Test
  void readOnlyRefusesActions() throws Exception {
    try (ConfigurableApplicationContext ctx =
        run("inbox.ui.enabled=true", "inbox.ui.read-only=true")) {
      HttpResponse<String> page = get(base(ctx, "/actuator/inbox-ui/"));
      Matcher csrf = CSRF.matcher(page.body());
      assertThat(csrf.find()).isTrue();
      HttpResponse<String> r =
          post(
              base(ctx, "/actuator/inbox-ui/api/retry-dead"),
              "consumer=payments&csrf=" + csrf.group(1));
      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(r.body()).contains("read-only");
    }
  }

  @Test
  void offByDefault() throws Exception {
    try (ConfigurableApplicationContext ctx = run()) {
      assertThat(ctx.getBeanNamesForType(InboxUiAutoConfiguration.class)).isEmpty();
      assertThat(get(base(ctx, "/actuator/inbox-ui/")).statusCode()).isEqualTo(404);
    }
  }
}
