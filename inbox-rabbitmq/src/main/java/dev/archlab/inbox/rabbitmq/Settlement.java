package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Builds the copies a delivery is settled with: the retry copy (persistent, with a per-message TTL)
 * and the dead-letter copy (persistent, with headers naming where it came from and why). Both keep
 * the body, the message id and the other properties and headers of the original.
 */
final class Settlement {

  static final String ORIGINAL_QUEUE = "inbox-original-queue";
  static final String CONSUMER = "inbox-consumer";
  static final String ATTEMPTS = "inbox-attempts";
  static final String LAST_ERROR = "inbox-last-error";

  private static final int MAX_ERROR_CHARS = 2000;
  private static final int PERSISTENT = 2;

  private Settlement() {}

  /** The TTL in whole milliseconds, rounded up so that the copy never comes back early. */
  static long ttlMillis(Duration delay, Duration min, Duration max) {
    Duration d = delay.compareTo(min) < 0 ? min : delay.compareTo(max) > 0 ? max : delay;
    long ms = d.toMillis();
    return d.minusMillis(ms).isZero() ? Math.max(1, ms) : ms + 1;
  }

  /** The retry copy; {@code tracing} replaces the original's headers of the same names. */
  static AMQP.BasicProperties retryCopy(Delivery d, long ttlMillis, Map<String, String> tracing) {
    Map<String, Object> headers = headersOf(d);
    headers.putAll(tracing);
    return base(d).expiration(Long.toString(ttlMillis)).headers(headers).build();
  }

  /** The dead-letter copy; {@code tracing} replaces the original's headers of the same names. */
  static AMQP.BasicProperties deadLetterCopy(
      Delivery d,
      String queue,
      String consumer,
      int attempts,
      String error,
      Map<String, String> tracing) {
    Map<String, Object> headers = headersOf(d);
    headers.putAll(tracing);
    headers.put(ORIGINAL_QUEUE, queue);
    headers.put(CONSUMER, consumer);
    headers.put(ATTEMPTS, attempts);
    String e = error == null ? "" : error;
    headers.put(LAST_ERROR, e.length() <= MAX_ERROR_CHARS ? e : e.substring(0, MAX_ERROR_CHARS));
    return base(d).expiration(null).headers(headers).build();
  }

  private static AMQP.BasicProperties.Builder base(Delivery d) {
    AMQP.BasicProperties p = d.getProperties();
    AMQP.BasicProperties.Builder b = p == null ? new AMQP.BasicProperties.Builder() : p.builder();
    return b.deliveryMode(PERSISTENT);
  }

  private static Map<String, Object> headersOf(Delivery d) {
    Map<String, Object> h = d.getProperties() == null ? null : d.getProperties().getHeaders();
    return h == null ? new HashMap<>() : new HashMap<>(h);
  }
}
