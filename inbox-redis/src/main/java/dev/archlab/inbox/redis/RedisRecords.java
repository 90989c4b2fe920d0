package dev.archlab.inbox.redis;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the record hash and the store's times to and from Java: times are whole microseconds since
 * the epoch (what {@code TIME} gives), fields have short names.
 *
 * <pre>
 * st  state (PROCESSING, DONE, DEAD)     ca  createdAt
 * at  attempts, the fencing token        ua  updatedAt
 * lu  leaseUntil (PROCESSING only)       er  lastError, UTF-8 (absent: none)
 * ph  payload hash (absent: none)        rs  kept result bytes (absent: none)
 * </pre>
 */
final class RedisRecords {

  /**
   * The largest magnitude, in microseconds, sent to a script: 2^53, beyond which Lua's numbers
   * (doubles) are no longer exact. Times beyond it (the year 2255) are clamped to it.
   */
  static final long MAX_MICROS = 1L << 53;

  private RedisRecords() {}

  /** A record from the flat HGETALL reply of a script (field, value, field, value ...). */
  static InboxRecord fromReply(String consumer, String messageId, Object reply) {
    List<?> flat = (List<?>) reply;
    Map<String, byte[]> fields = new HashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      fields.put(text((byte[]) flat.get(i)), (byte[]) flat.get(i + 1));
    }
    return fromFields(consumer, messageId, fields);
  }

  /** A record from HGETALL; null if the hash has no fields (no record). */
  static InboxRecord fromHash(String consumer, String messageId, Map<byte[], byte[]> hash) {
    if (hash == null || hash.isEmpty()) {
      return null;
    }
    Map<String, byte[]> fields = new HashMap<>();
    hash.forEach((k, v) -> fields.put(text(k), v));
    return fromFields(consumer, messageId, fields);
  }

  private static InboxRecord fromFields(
      String consumer, String messageId, Map<String, byte[]> fields) {
    byte[] error = fields.get("er");
    byte[] hash = fields.get("ph");
    byte[] lease = fields.get("lu");
    return new InboxRecord(
        consumer,
        messageId,
        RecordState.valueOf(text(fields.get("st"))),
        Integer.parseInt(text(fields.get("at"))),
        lease == null ? null : instant(lease),
        instant(fields.get("ca")),
        instant(fields.get("ua")),
        error == null ? null : text(error),
        hash == null ? null : text(hash),
        fields.get("rs"));
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] bytes(long n) {
    return bytes(Long.toString(n));
  }

  /** An instant from decimal microseconds since the epoch. */
  static Instant instant(byte[] micros) {
    long us = Long.parseLong(text(micros));
    return Instant.ofEpochSecond(
        Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000);
  }

  /**
   * A duration in whole microseconds, rounded up so a positive lease stays positive, clamped to
   * {@link #MAX_MICROS}.
   */
  static long micros(Duration d) {
    if (d.getSeconds() >= MAX_MICROS / 1_000_000L) {
      return MAX_MICROS;
    }
    return d.getSeconds() * 1_000_000L + (d.getNano() + 999) / 1000;
  }

  /** An instant in microseconds since the epoch, rounded up, clamped to ±{@link #MAX_MICROS}. */
  static long ceilMicros(Instant t) {
    long seconds = t.getEpochSecond();
    if (seconds >= MAX_MICROS / 1_000_000L) {
      return MAX_MICROS;
    }
    if (seconds <= -MAX_MICROS / 1_000_000L) {
      return -MAX_MICROS;
    }
    return seconds * 1_000_000L + (t.getNano() + 999) / 1000;
  }
}
