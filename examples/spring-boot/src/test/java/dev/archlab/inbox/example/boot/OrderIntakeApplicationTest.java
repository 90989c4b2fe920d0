package dev.archlab.inbox.example.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.kafka.KafkaBroker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Starts the example service on a random port with its embedded PostgreSQL and talks to it over
 * real HTTP only: a message delivered three times writes one order, the meters count the two
 * duplicates, and health and the inbox endpoint report the states; a DEAD payment is retried
 * through the endpoint. Orders also come from a topic on a real Kafka broker (the one inbox-kafka's
 * tests start): a record delivered three times writes one order.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrderIntakeApplicationTest {

  @Autowired Environment environment;
  @Autowired JdbcTemplate jdbc;

  private final HttpClient http = HttpClient.newHttpClient();

  /** The broker and its topics exist before the application's listener starts. */
  @DynamicPropertySource
  static void kafka(DynamicPropertyRegistry registry) {
    KafkaBroker broker = KafkaBroker.get();
    broker.createTopics(1, "orders", "orders.DLT");
    registry.add("spring.kafka.bootstrap-servers", broker::bootstrap);
  }

  private HttpResponse<String> send(String method, String path, String body)
      throws IOException, InterruptedException {
    String port = environment.getRequiredProperty("local.server.port");
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (body == null) {
      request.GET();
    } else {
      request.method(method, HttpRequest.BodyPublishers.ofString(body));
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void threeDeliveriesOneOrderAndTheActuatorShowsIt() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> r = send("POST", "/deliveries/orders/order-1", "two coffees");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains(i == 0 ? "APPLIED" : "DUPLICATE");
    }
    // By id: the Kafka test writes orders into the same table.
    assertThat(rows("order-1")).isEqualTo(1);

    String prometheus = send("GET", "/actuator/prometheus", null).body();
    assertThat(prometheus)
        .containsPattern(
            "inbox_consume_seconds_count\\{[^}]*consumer=\"orders\"[^}]*outcome=\"duplicate\"[^}]*\\} 2(\\.0)?\\n")
        .containsPattern(
            "inbox_consume_seconds_count\\{[^}]*consumer=\"orders\"[^}]*outcome=\"applied\"[^}]*\\} 1(\\.0)?\\n");

    HttpResponse<String> health = send("GET", "/actuator/health", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"inbox\"").contains("\"orders\"");

    String inbox = send("GET", "/actuator/inbox", null).body();
    assertThat(inbox).containsPattern("\"consumer\":\"orders\",\"processing\":0,\"done\":1");
  }

  @Test
  void deadPaymentIsListedAndRetriedThroughTheEndpoint() throws Exception {
    assertThat(send("POST", "/deliveries/payments/pay-1", "fail").body()).contains("DEAD");

    String dead = send("GET", "/actuator/inbox/dead?consumer=payments", null).body();
    assertThat(dead).contains("\"messageId\":\"pay-1\"").contains("card declined");
    HttpResponse<String> health = send("GET", "/actuator/health", null);
    // Over the DEAD threshold: reported as a detail, the status stays UP (not asked to go DOWN).
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("payments: 1 DEAD records");

    HttpResponse<String> retried =
        send("POST", "/actuator/inbox/payments/retry-dead", "{\"messageIds\":\"pay-1\"}");
    assertThat(retried.statusCode()).isEqualTo(200);
    assertThat(retried.body()).contains("\"retried\":1");
    assertThat(send("GET", "/actuator/inbox/dead?consumer=payments", null).body()).isEqualTo("[]");

    // Forgotten: the next delivery starts afresh (attempt 1) and, fixed, applies.
    assertThat(send("POST", "/deliveries/payments/pay-1", "ok").body()).contains("APPLIED");

    HttpResponse<String> bad = send("POST", "/actuator/inbox/payments/explode", "{}");
    assertThat(bad.statusCode()).isEqualTo(400);
  }

  @Test
  void aRecordDeliveredThreeTimesWritesOneOrder() throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                environment.getRequiredProperty("spring.kafka.bootstrap-servers")),
            new StringSerializer(),
            new StringSerializer())) {
      for (String id : new String[] {"k-1", "k-1", "k-1", "k-last"}) {
        ProducerRecord<String, String> record = new ProducerRecord<>("orders", "a sandwich");
        record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get(1, TimeUnit.MINUTES);
      }
    }
    // One partition, in order: once k-last is written, the three k-1 deliveries are finished.
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (rows("k-last") == 0) {
      assertThat(System.nanoTime() - deadline)
          .as("k-last applied within the backstop")
          .isNegative();
      Thread.sleep(100);
    }
    assertThat(rows("k-1")).isEqualTo(1);
    String inbox = send("GET", "/actuator/inbox", null).body();
    assertThat(inbox).containsPattern("\"consumer\":\"kafka-orders\",\"processing\":0,\"done\":2");
    String prometheus = send("GET", "/actuator/prometheus", null).body();
    assertThat(prometheus)
        .containsPattern(
            "inbox_consume_seconds_count\\{[^}]*consumer=\"kafka-orders\"[^}]*outcome=\"duplicate\"[^}]*\\} 2(\\.0)?\\n");
  }

  private long rows(String id) {
    return jdbc.queryForObject("SELECT count(*) FROM orders WHERE id = ?", Long.class, id);
  }
}
