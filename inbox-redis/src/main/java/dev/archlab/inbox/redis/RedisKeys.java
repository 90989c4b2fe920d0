package dev.archlab.inbox.redis;

import dev.archlab.inbox.RecordState;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The key layout of one store: a record and its index entries live in one bucket of one consumer,
 * and every key of a bucket carries the same hash tag, so each script touches one Redis Cluster
 * slot. A message's bucket is a stable hash of its id modulo the bucket count: one consumer's
 * records spread over that many slots instead of one hot shard.
 *
 * <pre>
 * {prefix}consumers                          set of consumer names (for "all consumers")
 * {prefix}{consumer:bucket}:r:{messageId}    hash: one record
 * {prefix}{consumer:bucket}:i:PROCESSING     sorted set: ids by createdAt
 * {prefix}{consumer:bucket}:i:DONE           sorted set: ids by createdAt
 * {prefix}{consumer:bucket}:i:DEAD           sorted set: ids by createdAt
 * {prefix}{consumer:bucket}:u:DONE           sorted set: ids by updatedAt, for prune
 * </pre>
 *
 * <p>Inside the hash tag the consumer name has {@code %}, <code>{</code> and <code>}</code>
 * percent-encoded, so a name containing a brace cannot end the tag early.
 */
final class RedisKeys {

  private final String prefix;
  private final int buckets;

  RedisKeys(String prefix, int buckets) {
    this.prefix = prefix;
    this.buckets = buckets;
  }

  int buckets() {
    return buckets;
  }

  /** The bucket of {@code messageId}: CRC-32 of its UTF-8 bytes modulo the bucket count. */
  int bucketOf(String messageId) {
    CRC32 crc = new CRC32();
    crc.update(messageId.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % buckets);
  }

  byte[] consumers() {
    return bytes(prefix + "consumers");
  }

  /** The part every key of one bucket starts with, hash tag included. */
  String bucketPrefix(String consumer, int bucket) {
    return prefix + "{" + encode(consumer) + ":" + bucket + "}:";
  }

  /** What the record key of every id in the bucket starts with; the id follows. */
  byte[] recordPrefix(String consumer, int bucket) {
    return bytes(bucketPrefix(consumer, bucket) + "r:");
  }

  byte[] record(String consumer, String messageId) {
    return bytes(bucketPrefix(consumer, bucketOf(messageId)) + "r:" + messageId);
  }

  /** The index of {@code state} by createdAt in one bucket. */
  byte[] index(String consumer, int bucket, RecordState state) {
    return bytes(bucketPrefix(consumer, bucket) + "i:" + state.name());
  }

  /** The index of DONE records by updatedAt in one bucket, for prune. */
  byte[] doneByUpdate(String consumer, int bucket) {
    return bytes(bucketPrefix(consumer, bucket) + "u:DONE");
  }

  /**
   * The record key and every index key of a message's bucket, in the order the record scripts take
   * them: record, PROCESSING, DONE, DEAD, DONE by updatedAt.
   */
  byte[][] recordScriptKeys(String consumer, String messageId) {
    int bucket = bucketOf(messageId);
    return new byte[][] {
      record(consumer, messageId),
      index(consumer, bucket, RecordState.PROCESSING),
      index(consumer, bucket, RecordState.DONE),
      index(consumer, bucket, RecordState.DEAD),
      doneByUpdate(consumer, bucket)
    };
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String encode(String consumer) {
    if (consumer.indexOf('%') < 0 && consumer.indexOf('{') < 0 && consumer.indexOf('}') < 0) {
      return consumer;
    }
    return consumer.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
  }
}
