package dev.archlab.inbox.spring.boot;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/** What the {@code inbox} and {@code outbox} endpoints read from a request, read the same way. */
final class EndpointInput {

  private EndpointInput() {}

  /** The ids of a comma-separated list, stripped, blanks left out; empty for none. */
  static List<String> splitIds(@Nullable String messageIds) {
    List<String> ids = new ArrayList<>();
    if (messageIds != null) {
      for (String id : messageIds.split(",")) {
        if (!id.isBlank()) {
          ids.add(id.strip());
        }
      }
    }
    return ids;
  }

  /** Actuator answers this exception with 400 and the message as the reason. */
  static InvalidEndpointRequestException badRequest(String message) {
    return new InvalidEndpointRequestException(message, message);
  }
}
