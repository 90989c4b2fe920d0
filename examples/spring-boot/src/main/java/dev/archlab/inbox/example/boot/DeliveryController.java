package dev.archlab.inbox.example.boot;

import dev.archlab.inbox.Message;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /deliveries/{consumer}/{id}} with the payload as the body: one delivery, as a broker
 * would make it. Answers the outcome.
 */
@RestController
class DeliveryController {

  private final OrderService service;

  DeliveryController(OrderService service) {
    this.service = service;
  }

  @PostMapping("/deliveries/{consumer}/{id}")
  Map<String, String> deliver(
      @PathVariable("consumer") String consumer,
      @PathVariable("id") String id,
      @RequestBody String payload) {
    Message message = Message.of(id, consumer, payload.getBytes(StandardCharsets.UTF_8));
    return Map.of("status", service.deliver(consumer, message).status().name());
  }
}
