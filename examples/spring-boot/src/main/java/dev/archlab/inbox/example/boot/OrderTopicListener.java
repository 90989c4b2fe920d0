package dev.archlab.inbox.example.boot;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.context.annotation.DependsOn;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Orders from the Kafka topic {@code orders}: a plain {@code @KafkaListener} with no inbox code.
 * The property {@code inbox.kafka.listeners.order-listener.consumer=kafka-orders} makes it
 * idempotent: a redelivered record is answered DUPLICATE and never reaches this method again, and
 * its row and DONE commit in one Spring transaction.
 */
@Component
@DependsOn("orderService") // it creates the orders table
class OrderTopicListener {

  private final JdbcTemplate jdbc;

  OrderTopicListener(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  // tag::listener[]
  @KafkaListener(id = "order-listener", topics = "orders")
  void onOrder(ConsumerRecord<String, String> record) {
    Header id = record.headers().lastHeader("message-id");
    jdbc.update(
        "INSERT INTO orders (id, body) VALUES (?, ?)",
        new String(id.value(), StandardCharsets.UTF_8),
        record.value());
  }
  // end::listener[]
}
