package dev.archlab.inbox.example.boot;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.spring.boot.InboxConsumers;
import dev.archlab.inbox.spring.boot.SpringTransactionalConsumer;
import java.nio.charset.StandardCharsets;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * The business: an order row per message, written through {@link JdbcTemplate} in the same Spring
 * transaction that records the message as DONE. Payment messages whose payload is {@code fail}
 * always fail, so they end DEAD (the {@code payments} consumer has one attempt).
 */
@Service
public class OrderService {

  private final SpringTransactionalConsumer orders;
  private final SpringTransactionalConsumer payments;

  OrderService(InboxConsumers consumers, JdbcTemplate jdbc) {
    jdbc.execute(
        "CREATE TABLE IF NOT EXISTS orders (id VARCHAR(100) PRIMARY KEY, body VARCHAR(1000))");
    // tag::transactional[]
    this.orders =
        consumers.transactional(
            "orders",
            (message, attempt) ->
                jdbc.update(
                    "INSERT INTO orders (id, body) VALUES (?, ?)",
                    message.id(),
                    new String(message.payload(), StandardCharsets.UTF_8)));
    // end::transactional[]
    this.payments =
        consumers.transactional(
            "payments",
            (message, attempt) -> {
              if ("fail".equals(new String(message.payload(), StandardCharsets.UTF_8))) {
                throw new IllegalStateException("card declined");
              }
            });
  }

  /**
   * One delivery of consumer {@code consumer}.
   *
   * @param consumer {@code orders} or {@code payments}
   * @param message the delivery
   * @return its outcome
   */
  public Outcome deliver(String consumer, Message message) {
    // tag::deliver[]
    return switch (consumer) {
      case "orders" -> orders.consume(message);
      case "payments" -> payments.consume(message);
      default -> throw new IllegalArgumentException("no consumer " + consumer);
    }; // each consume joins a @Transactional caller, or starts a transaction
    // end::deliver[]
  }
}
