package dev.archlab.inbox.redis;

import static dev.archlab.inbox.redis.RedisRecords.bytes;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * What operators do to a {@link RedisInboxStore}: counts per consumer, ending a hung owner's lease,
 * forgetting DEAD records, counting and pruning old DONE records with progress. Every change is one
 * script on the record's master, timed by the server's clock. Obtained from {@link
 * RedisInboxStore#admin()}; thread-safe.
 */
public final class RedisInboxAdmin {

  private final RedisInboxStore store;

  RedisInboxAdmin(RedisInboxStore store) {
    this.store = store;
  }

  /**
   * One consumer's records by state.
   *
   * @param consumer the consumer
   * @param processing PROCESSING records (running, or waiting for a retry)
   * @param done DONE records not yet expired (Redis expires them after the retention)
   * @param dead DEAD records
   */
  public record ConsumerCounts(String consumer, long processing, long done, long dead) {}

  /**
   * Counts for every consumer that has records in the store's key space. DONE counts records
   * updated within the store's retention, which are the ones Redis has not expired.
   *
   * @return one entry per consumer, by name
   */
  public List<ConsumerCounts> counts() {
    Instant now = store.currentTime();
    long live = RedisRecords.ceilMicros(now.minus(store.settings().retention()));
    List<ConsumerCounts> out = new ArrayList<>();
    RedisKeys keys = store.keys();
    for (String consumer : store.consumers()) {
      long processing = 0;
      long done = 0;
      long dead = 0;
      for (int bucket = 0; bucket < keys.buckets(); bucket++) {
        byte[] p = keys.index(consumer, bucket, RecordState.PROCESSING);
        byte[] d = keys.index(consumer, bucket, RecordState.DEAD);
        byte[] u = keys.doneByUpdate(consumer, bucket);
        processing += store.call("count", () -> store.target().onKey(p, false, c -> c.zcard(p)));
        dead += store.call("count", () -> store.target().onKey(d, false, c -> c.zcard(d)));
        done +=
            store.call(
                "count",
                () ->
                    store
                        .target()
                        .onKey(
                            u,
                            false,
                            c ->
                                c.zcount(
                                    u,
                                    io.lettuce.core.Range.create(
                                        (double) live, Double.POSITIVE_INFINITY))));
      }
      out.add(new ConsumerCounts(consumer, processing, done, dead));
    }
    return List.copyOf(out);
  }

  /**
   * Ends a live lease now, so another instance may take the message over at its next delivery. For
   * an owner known to be gone (a hung host); a live owner will be fenced out.
   *
   * @param consumer the consumer
   * @param messageId the message id
   * @return the record after the release; empty if there is no PROCESSING record for the key
   */
  public Optional<InboxRecord> release(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    if (!change(consumer, messageId, "RELEASE")) {
      return Optional.empty();
    }
    return store.find(consumer, messageId);
  }

  /**
   * Forgets DEAD records so their next delivery starts afresh at attempt 1 with the full retry
   * budget. Only DEAD records are touched. This restarts the fencing tokens of those messages: use
   * it only when no instance still works on them.
   *
   * @param consumer the consumer
   * @param messageIds the ids to retry; empty for every DEAD record of the consumer
   * @return how many DEAD records were forgotten
   */
  public long retryDead(String consumer, List<String> messageIds) {
    Identifiers.requireConsumerName(consumer);
    Objects.requireNonNull(messageIds, "messageIds");
    messageIds.forEach(Identifiers::requireMessageId);
    List<String> ids = messageIds;
    if (ids.isEmpty()) {
      ids = new ArrayList<>();
      for (InboxRecord r : store.list(RecordState.DEAD, consumer, Integer.MAX_VALUE)) {
        ids.add(r.messageId());
      }
    }
    long forgotten = 0;
    for (String id : ids) {
      if (change(consumer, id, "RETRY_DEAD")) {
        forgotten++;
      }
    }
    return forgotten;
  }

  /**
   * Counts the DONE records that {@link #prune} would delete now: those still in Redis and last
   * updated strictly before {@code before}. Read page by page, so records changing meanwhile may be
   * counted or missed; PROCESSING and DEAD records are never counted.
   *
   * @param consumer the consumer, or null for every consumer
   * @param before the cut-off, exclusive
   * @return how many DONE records were updated before the cut-off
   */
  public long countPrunable(String consumer, Instant before) {
    Objects.requireNonNull(before, "before");
    byte[] cutOff = bytes(RedisRecords.ceilMicros(before));
    long counted = 0;
    RedisKeys keys = store.keys();
    for (String c : consumers(consumer)) {
      for (int bucket = 0; bucket < keys.buckets(); bucket++) {
        byte[][] scriptKeys = {keys.doneByUpdate(c, bucket)};
        byte[] recordPrefix = keys.recordPrefix(c, bucket);
        long offset = 0;
        while (true) {
          byte[] from = bytes(offset);
          List<Object> reply =
              store.call(
                  "count prunable",
                  () ->
                      store
                          .target()
                          .onKey(
                              scriptKeys[0],
                              false,
                              cmd ->
                                  RedisScripts.CENSUS.run(
                                      cmd,
                                      scriptKeys,
                                      cutOff,
                                      from,
                                      bytes(RedisInboxStore.PRUNE_BATCH),
                                      recordPrefix)));
          counted += (Long) reply.get(0);
          long looked = (Long) reply.get(1);
          if (looked < RedisInboxStore.PRUNE_BATCH) {
            break;
          }
          offset += looked;
        }
      }
    }
    return counted;
  }

  /**
   * Deletes the DONE records last updated strictly before {@code before}, as {@link
   * RedisInboxStore#prune(String, Instant)} does, reporting the running total after every batch so
   * an operator sees progress. PROCESSING and DEAD records are never deleted.
   *
   * @param consumer the consumer, or null for every consumer
   * @param before the cut-off, exclusive
   * @param progress receives the running total of deleted records after every batch
   * @return how many records were deleted
   */
  public long prune(String consumer, Instant before, LongConsumer progress) {
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(progress, "progress");
    byte[] cutOff = bytes(RedisRecords.ceilMicros(before));
    long[] total = {0};
    for (String c : consumers(consumer)) {
      for (int bucket = 0; bucket < store.keys().buckets(); bucket++) {
        store.pruneBucket(
            c,
            bucket,
            cutOff,
            deleted -> {
              total[0] += deleted;
              progress.accept(total[0]);
            });
      }
    }
    return total[0];
  }

  /** {@code consumer} alone once validated, or every consumer of the store when it is null. */
  private java.util.Set<String> consumers(String consumer) {
    if (consumer == null) {
      return store.consumers();
    }
    Identifiers.requireConsumerName(consumer);
    return java.util.Set.of(consumer);
  }

  private boolean change(String consumer, String messageId, String action) {
    RedisKeys keys = store.keys();
    int bucket = keys.bucketOf(messageId);
    byte[][] scriptKeys = {
      keys.record(consumer, messageId),
      keys.index(consumer, bucket, RecordState.PROCESSING),
      keys.index(consumer, bucket, RecordState.DEAD)
    };
    List<Object> reply =
        store.write(
            action.toLowerCase(java.util.Locale.ROOT),
            scriptKeys[0],
            c -> RedisScripts.ADMIN.run(c, scriptKeys, bytes(action), bytes(messageId)),
            r -> (Long) r.get(0) == 1);
    return (Long) reply.get(0) == 1;
  }
}
