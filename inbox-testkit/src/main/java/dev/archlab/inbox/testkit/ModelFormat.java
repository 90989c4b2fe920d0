package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;

/**
 * The model test's small key space and the way it writes keys, times and bytes in traces and
 * failure messages. Times are shown relative to "now" and truncated to microseconds, the precision
 * every supported database keeps.
 */
final class ModelFormat {

  // A small key space, so that actions keep hitting the same records and reach every state.
  static final List<String> CONSUMERS = List.of("orders", "billing");
  static final List<String> MESSAGE_IDS = List.of("m0", "m1", "m2");

  /** A message id no action ever begins, for claims on keys that do not exist. */
  static final String GHOST_ID = "ghost";

  private ModelFormat() {}

  static Instant micros(Instant t) {
    return t.truncatedTo(ChronoUnit.MICROS);
  }

  static Duration relative(Instant t, Instant now) {
    return t == null ? null : Duration.between(micros(now), micros(t));
  }

  static String offset(Duration d) {
    if (d.isZero()) {
      return "now";
    }
    return "now" + (d.isNegative() ? "-" : "+") + seconds(BigDecimal.valueOf(d.abs().toNanos(), 9));
  }

  static String seconds(long millis) {
    return seconds(BigDecimal.valueOf(millis, 3));
  }

  private static String seconds(BigDecimal seconds) {
    return seconds.stripTrailingZeros().toPlainString() + "s";
  }

  static String key(int consumer, int id) {
    return CONSUMERS.get(consumer) + "/" + MESSAGE_IDS.get(id);
  }

  static String keyOf(InboxRecord r) {
    return r.consumer() + "/" + r.messageId();
  }

  static String keyOf(Claim c) {
    return c.consumer() + "/" + c.messageId();
  }

  static String describe(Claim c) {
    return "claim(" + keyOf(c) + " #" + c.fencingToken() + ")";
  }

  static String hex(byte[] bytes) {
    return bytes == null ? null : "[" + HexFormat.of().formatHex(bytes) + "]";
  }
}
