package dev.archlab.inbox.redis;

import static dev.archlab.inbox.redis.RedisRecords.bytes;
import static dev.archlab.inbox.redis.RedisRecords.text;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.store.RecordStateMachine;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An {@link InboxStore} on Redis (one server or a Redis Cluster) through Lettuce, for effects
 * outside any database: an SMS, an HTTP call, a notification.
 *
 * <p><b>What it guarantees.</b> Every primitive is one Lua script, so each decision is atomic on
 * the server, and every time it reads or writes comes from the server's {@code TIME} inside the
 * script, never from a client's clock. {@code begin} takes the decision of {@link
 * RecordStateMachine#begin} (claim, duplicate, in flight, takeover with attempts + 1, death at the
 * last attempt, payload fingerprint check); complete, fail, extend and mark-dead are fenced by the
 * attempt number. A DONE record expires after the {@linkplain RedisStoreBuilder#retention
 * retention}, set by the same script that completes it: the dedup window is Redis's own expiry.
 * PROCESSING and DEAD records never expire; {@link #prune} deletes DONE records early and drops
 * index entries of expired ones. Per-state sorted sets, kept by the same scripts, serve {@link
 * #find}, {@link #list} and the operator's counts ({@link #admin()}).
 *
 * <p><b>Redis Cluster.</b> A record and its index entries share the hash tag {@code
 * {consumer:bucket}}, where the bucket is a stable hash of the message id modulo the {@linkplain
 * RedisStoreBuilder#buckets bucket count}, so each script touches one slot while one consumer's
 * records spread over many slots: a tag per consumer would put a busy consumer on one shard. Reads
 * over all records (list, prune, counts) visit every bucket. On a cluster each slot's master
 * decides by its own clock; keep the masters' clocks in step (NTP), as with any lease.
 *
 * <p><b>Durability, honestly.</b> Redis cannot commit a DONE record together with a business
 * database write, so this store is for effects outside the database. Redis replicates
 * asynchronously: a failover can lose the newest records, and a lost claim or completion lets a
 * message run again. {@link RedisStoreBuilder#waitForReplicas} makes every write wait ({@code
 * WAIT}) until that many replicas hold it, which narrows that window at the cost of a replica round
 * trip per write; a write that is not confirmed in time is reported as {@link
 * StoreUnavailableException} (it did happen on the master). What the server keeps across its own
 * restart depends on its persistence settings (AOF with {@code appendfsync always} for every
 * write).
 *
 * <p>Thread-safe; one multiplexed connection serves every thread. Close the store to close the
 * connection (and the client, if the store created it). Any Redis failure is reported as {@link
 * StoreUnavailableException}.
 */
public final class RedisInboxStore implements InboxStore, AutoCloseable {

  static final int PRUNE_BATCH = 1000;
  private static final byte[] ONE = bytes("1");
  private static final byte[] ZERO = bytes("0");
  private static final byte[] NOTHING = new byte[0];
  private static final byte[] DIED_ERROR = bytes(RecordStateMachine.LEASE_EXPIRED_ERROR_FORMAT);

  private final RedisTarget target;
  private final RedisKeys keys;
  private final RedisSettings settings;
  private final byte[] retentionMillis;

  /** Consumers this store has already added to the consumer set; a new one is added once. */
  private final Set<String> registered = ConcurrentHashMap.newKeySet();

  RedisInboxStore(RedisTarget target, RedisSettings settings) {
    this.target = target;
    this.settings = settings;
    this.keys = new RedisKeys(settings.keyPrefix(), settings.buckets());
    this.retentionMillis = bytes(Math.max(1, settings.retention().toMillis()));
  }

  /**
   * A builder; see {@link RedisSettings} for the settings and their defaults.
   *
   * @return a new builder
   */
  public static RedisStoreBuilder builder() {
    return new RedisStoreBuilder();
  }

  /**
   * The settings this store runs with.
   *
   * @return the validated settings
   */
  public RedisSettings settings() {
    return settings;
  }

  /**
   * The operator's view of this store: counts, release, retry-dead, prune with progress.
   *
   * @return an admin over the same connection
   */
  public RedisInboxAdmin admin() {
    return new RedisInboxAdmin(this);
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    String consumer = request.consumer();
    String id = request.messageId();
    register(consumer);
    byte[][] scriptKeys = keys.recordScriptKeys(consumer, id);
    boolean hashGiven = request.payloadHash() != null;
    List<Object> reply =
        write(
            "begin",
            scriptKeys[0],
            c ->
                RedisScripts.BEGIN.run(
                    c,
                    scriptKeys,
                    bytes(RedisRecords.micros(request.lease())),
                    bytes(request.maxAttempts()),
                    hashGiven ? ONE : ZERO,
                    hashGiven ? bytes(request.payloadHash()) : NOTHING,
                    bytes(id),
                    DIED_ERROR),
            r -> {
              String decision = text((byte[]) r.get(0));
              return !decision.equals("MISMATCH")
                      && RecordStateMachine.writes(Kind.valueOf(decision))
                  || decision.equals("CLAIMED");
            });
    String decision = text((byte[]) reply.get(0));
    if (decision.equals("MISMATCH")) {
      throw new PayloadMismatchException(consumer, id);
    }
    Instant now = RedisRecords.instant((byte[]) reply.get(1));
    InboxRecord record = RedisRecords.fromReply(consumer, id, reply.get(2));
    return BeginResult.of(Kind.valueOf(decision), record, now);
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    ArgumentChecks.requireResultSize(result);
    return fenced(claim, "DONE", retentionMillis, result);
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    ArgumentChecks.requireNonNegative(retryDelay, "retryDelay");
    String bounded = InboxRecord.boundError(error);
    return fenced(
        claim,
        "RETRY",
        bytes(RedisRecords.micros(retryDelay)),
        bounded == null ? null : bytes(bounded));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    String bounded = InboxRecord.boundError(error);
    return fenced(claim, "PARK", ZERO, bounded == null ? null : bytes(bounded));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    ArgumentChecks.requirePositive(lease, "lease");
    return fenced(claim, "EXTEND", bytes(RedisRecords.micros(lease)), null).toClaim();
  }

  @Override
  public long prune(Instant before) {
    Objects.requireNonNull(before, "before");
    long deleted = 0;
    for (String consumer : consumers()) {
      deleted += prune(consumer, before);
    }
    return deleted;
  }

  @Override
  public long prune(String consumer, Instant before) {
    Identifiers.requireConsumerName(consumer);
    Objects.requireNonNull(before, "before");
    byte[] cutOff = bytes(RedisRecords.ceilMicros(before));
    long deleted = 0;
    for (int bucket = 0; bucket < keys.buckets(); bucket++) {
      deleted += pruneBucket(consumer, bucket, cutOff, batch -> {});
    }
    return deleted;
  }

  /**
   * Prunes one bucket in batches of {@value #PRUNE_BATCH} index entries; returns deletions and
   * hands each batch's deletions to {@code afterBatch}.
   */
  long pruneBucket(
      String consumer, int bucket, byte[] cutOff, java.util.function.LongConsumer afterBatch) {
    byte[][] scriptKeys = {
      keys.index(consumer, bucket, RecordState.DONE), keys.doneByUpdate(consumer, bucket)
    };
    byte[] recordPrefix = keys.recordPrefix(consumer, bucket);
    long deleted = 0;
    while (true) {
      List<Object> reply =
          write(
              "prune",
              scriptKeys[0],
              c -> RedisScripts.PRUNE.run(c, scriptKeys, cutOff, bytes(PRUNE_BATCH), recordPrefix),
              r -> (Long) r.get(0) > 0);
      deleted += (Long) reply.get(0);
      afterBatch.accept((Long) reply.get(0));
      if ((Long) reply.get(1) < PRUNE_BATCH) {
        return deleted;
      }
    }
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    byte[] key = keys.record(consumer, messageId);
    return Optional.ofNullable(
        call(
            "find",
            () ->
                target.onKey(
                    key, false, c -> RedisRecords.fromHash(consumer, messageId, c.hgetall(key)))));
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    Objects.requireNonNull(state, "state");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer);
    }
    ArgumentChecks.requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    List<InboxRecord> found = new ArrayList<>();
    for (String c : consumer == null ? consumers() : Set.of(consumer)) {
      for (int bucket = 0; bucket < keys.buckets(); bucket++) {
        found.addAll(listBucket(state, c, bucket, limit));
      }
    }
    found.sort(
        Comparator.comparing(InboxRecord::createdAt)
            .thenComparing(InboxRecord::consumer)
            .thenComparing(InboxRecord::messageId));
    return List.copyOf(found.subList(0, Math.min(limit, found.size())));
  }

  private List<InboxRecord> listBucket(RecordState state, String consumer, int bucket, int limit) {
    byte[][] scriptKeys = {keys.index(consumer, bucket, state)};
    byte[] recordPrefix = keys.recordPrefix(consumer, bucket);
    List<Object> reply =
        call(
            "list",
            () ->
                target.onKey(
                    scriptKeys[0],
                    false,
                    c ->
                        RedisScripts.LIST.run(
                            c, scriptKeys, bytes(state.name()), bytes(limit), recordPrefix)));
    List<InboxRecord> records = new ArrayList<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      records.add(RedisRecords.fromReply(consumer, text((byte[]) reply.get(i)), reply.get(i + 1)));
    }
    return records;
  }

  @Override
  public Instant currentTime() {
    List<byte[]> time = call("time", () -> target.any().time());
    long seconds = Long.parseLong(text(time.get(0)));
    long micros = Long.parseLong(text(time.get(1)));
    return Instant.ofEpochSecond(seconds, micros * 1000);
  }

  /** Closes the connection, and the client if the store created it. */
  @Override
  public void close() {
    target.close();
  }

  /** Every consumer that has ever had a record in this store's key space, sorted. */
  Set<String> consumers() {
    List<byte[]> members =
        call("consumers", () -> new ArrayList<>(target.any().smembers(keys.consumers())));
    Set<String> names = new TreeSet<>();
    for (byte[] m : members) {
      names.add(text(m));
    }
    return names;
  }

  RedisKeys keys() {
    return keys;
  }

  RedisTarget target() {
    return target;
  }

  /**
   * Adds {@code consumer} to the consumer set before its first record is written, so a read over
   * all consumers finds every record. Once per consumer per store: a repeat is harmless.
   */
  private void register(String consumer) {
    if (registered.contains(consumer)) {
      return;
    }
    call("register consumer", () -> target.any().sadd(keys.consumers(), bytes(consumer)));
    registered.add(consumer);
  }

  private InboxRecord fenced(Claim claim, String transition, byte[] amount, byte[] value) {
    Objects.requireNonNull(claim, "claim");
    byte[][] scriptKeys = keys.recordScriptKeys(claim.consumer(), claim.messageId());
    List<Object> reply =
        write(
            transition.toLowerCase(java.util.Locale.ROOT),
            scriptKeys[0],
            c ->
                RedisScripts.FENCED.run(
                    c,
                    scriptKeys,
                    bytes(claim.fencingToken()),
                    bytes(transition),
                    bytes(claim.messageId()),
                    amount,
                    value == null ? ZERO : ONE,
                    value == null ? NOTHING : value),
            r -> text((byte[]) r.get(0)).equals("OK"));
    switch (text((byte[]) reply.get(0))) {
      case "OK":
        return RedisRecords.fromReply(claim.consumer(), claim.messageId(), reply.get(2));
      case "NONE":
        throw RecordStateMachine.refusal(claim, null);
      default:
        throw RecordStateMachine.refusal(
            claim,
            RecordState.valueOf(text((byte[]) reply.get(1))),
            Integer.parseInt(text((byte[]) reply.get(2))));
    }
  }

  /**
   * Runs a script that may write on the master of {@code key}; if the store waits for replicas and
   * {@code wrote} says the script changed something, waits for them on the same master.
   */
  <T> T write(
      String operation,
      byte[] key,
      Function<RedisClusterCommands<byte[], byte[]>, T> script,
      java.util.function.Predicate<T> wrote) {
    int replicas = settings.replicasToWaitFor();
    if (replicas == 0) {
      return call(operation, () -> target.onKey(key, false, script));
    }
    return call(
        operation,
        () ->
            target.onKey(
                key,
                true,
                c -> {
                  T reply = script.apply(c);
                  if (wrote.test(reply)) {
                    awaitReplicas(operation, c, replicas);
                  }
                  return reply;
                }));
  }

  private void awaitReplicas(
      String operation, RedisClusterCommands<byte[], byte[]> c, int replicas) {
    Long acknowledged = c.waitForReplication(replicas, settings.replicaTimeout().toMillis());
    if (acknowledged == null || acknowledged < replicas) {
      throw new StoreUnavailableException(
          "redis "
              + operation
              + " was written on the master but only "
              + acknowledged
              + " of "
              + replicas
              + " replica(s) confirmed it within "
              + settings.replicaTimeout()
              + "; a failover now could lose it",
          null);
    }
  }

  /** Runs {@code call}, reporting any Redis failure as {@link StoreUnavailableException}. */
  <T> T call(String operation, java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (RedisException e) {
      throw new StoreUnavailableException(
          "redis "
              + operation
              + " failed"
              + (target.cluster() ? " (cluster)" : "")
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
