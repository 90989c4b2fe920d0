package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.Message;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;

/** Payment events for the examples' tests: the payload is an amount in cents. */
final class Messages {

  private Messages() {}

  static Message payment(String id, long cents) {
    return Message.of(id, "payments", Long.toString(cents).getBytes(StandardCharsets.UTF_8));
  }

  static List<Message> payments(String prefix, int count) {
    return IntStream.rangeClosed(1, count).mapToObj(i -> payment(prefix + i, 100L * i)).toList();
  }
}
