package dev.archlab.inbox.memory;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.internal.Identifiers;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe in-memory store for one process: the embedded default for tests, demos and
 * single-instance consumers whose effects need no durable dedup record. Records are lost when the
 * process ends.
 *
 * <p>Each key is guarded by its own monitor: operations on different message ids never wait for
 * each other, and there is no global lock. Memory stays bounded only if {@link #prune(Instant)} is
 * called (for example by {@link IdempotentConsumer#pruneExpired()} on a schedule).
 *
 * <p>Time comes from the {@link Clock} given at construction, so tests can move it.
 */
public final class MemoryInboxStore implements InboxStore {

  private final Clock clock;
  private final ConcurrentHashMap<Key, Slot> slots = new ConcurrentHashMap<>();

  /** A store on the system UTC clock. */
  public MemoryInboxStore() {
    this(Clock.systemUTC());
  }

  /** A store whose leases and timestamps follow {@code clock}. */
  public MemoryInboxStore(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  private record Key(String consumer, String messageId) {}

  /**
   * Holds one key's record. A slot removed by prune is marked so a thread that fetched it just
   * before the removal retries with a fresh slot instead of writing into a detached one.
   */
  private static final class Slot {
    InboxRecord record; // guarded by this
    boolean removed; // guarded by this
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    Key key = new Key(request.consumer(), request.messageId());
    while (true) {
      Slot slot = slotFor(key);
      synchronized (slot) {
        if (slot.removed) {
          continue;
        }
        Instant now = clock.instant();
        InboxRecord current = slot.record;
        if (current == null) {
          slot.record =
              new InboxRecord(
                  key.consumer,
                  key.messageId,
                  RecordState.PROCESSING,
                  1,
                  now.plus(request.lease()),
                  now,
                  now,
                  null,
                  request.payloadHash(),
                  null);
          return BeginResult.of(Kind.CLAIMED, slot.record, now);
        }
        if (request.payloadHash() != null
            && current.payloadHash() != null
            && !request.payloadHash().equals(current.payloadHash())) {
          throw new PayloadMismatchException(key.consumer, key.messageId);
        }
        switch (current.state()) {
          case DONE:
            return BeginResult.of(Kind.DUPLICATE, current, now);
          case DEAD:
            return BeginResult.of(Kind.DEAD, current, now);
          default:
            break;
        }
        if (now.isBefore(current.leaseUntil())) {
          return BeginResult.of(Kind.IN_FLIGHT, current, now);
        }
        if (current.attempts() >= request.maxAttempts()) {
          String error =
              current.lastError() != null
                  ? current.lastError()
                  : "lease expired without completion after "
                      + current.attempts()
                      + " attempt(s); the handler probably crashed the process";
          slot.record =
              current.transitioned(RecordState.DEAD, current.attempts(), null, now, error);
          return BeginResult.of(Kind.DIED, slot.record, now);
        }
        slot.record =
            current.transitioned(
                RecordState.PROCESSING,
                current.attempts() + 1,
                now.plus(request.lease()),
                now,
                current.lastError());
        return BeginResult.of(Kind.TAKEN_OVER, slot.record, now);
      }
    }
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    if (result != null && result.length > InboxRecord.MAX_RESULT_BYTES) {
      throw new IllegalArgumentException(
          "result of "
              + result.length
              + " bytes exceeds the limit of "
              + InboxRecord.MAX_RESULT_BYTES
              + " bytes");
    }
    return fenced(
        claim,
        (current, now) ->
            new InboxRecord(
                current.consumer(),
                current.messageId(),
                RecordState.DONE,
                current.attempts(),
                null,
                current.createdAt(),
                now,
                current.lastError(),
                current.payloadHash(),
                result));
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    requireNonNegative(retryDelay, "retryDelay");
    return fenced(
        claim,
        (current, now) ->
            current.transitioned(
                RecordState.PROCESSING,
                current.attempts(),
                now.plus(retryDelay),
                now,
                InboxRecord.boundError(error)));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    return fenced(
        claim,
        (current, now) ->
            current.transitioned(
                RecordState.DEAD, current.attempts(), null, now, InboxRecord.boundError(error)));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    return fenced(
            claim,
            (current, now) ->
                current.transitioned(
                    RecordState.PROCESSING,
                    current.attempts(),
                    now.plus(lease),
                    now,
                    current.lastError()))
        .toClaim();
  }

  @Override
  public long prune(Instant before) {
    Objects.requireNonNull(before, "before");
    return pruneWhere(null, before);
  }

  @Override
  public long prune(String consumer, Instant before) {
    Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    Objects.requireNonNull(before, "before");
    return pruneWhere(consumer, before);
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    Identifiers.requireMessageId(messageId, Message.MAX_ID_LENGTH);
    Slot slot = slots.get(new Key(consumer, messageId));
    if (slot == null) {
      return Optional.empty();
    }
    synchronized (slot) {
      return slot.removed ? Optional.empty() : Optional.ofNullable(slot.record);
    }
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    Objects.requireNonNull(state, "state");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    }
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, was " + limit);
    }
    List<InboxRecord> found = new ArrayList<>();
    for (Slot slot : slots.values()) {
      InboxRecord record;
      synchronized (slot) {
        record = slot.removed ? null : slot.record;
      }
      if (record != null
          && record.state() == state
          && (consumer == null || consumer.equals(record.consumer()))) {
        found.add(record);
      }
    }
    found.sort(
        Comparator.comparing(InboxRecord::createdAt)
            .thenComparing(InboxRecord::consumer)
            .thenComparing(InboxRecord::messageId));
    return List.copyOf(found.subList(0, Math.min(limit, found.size())));
  }

  @Override
  public Instant currentTime() {
    return clock.instant();
  }

  /** Number of records held, for tests and gauges. */
  public int size() {
    return slots.size();
  }

  private Slot slotFor(Key key) {
    Slot slot = slots.get(key);
    // get() first: computeIfAbsent may lock the hash bin even when the key is present.
    return slot != null ? slot : slots.computeIfAbsent(key, k -> new Slot());
  }

  private long pruneWhere(String consumer, Instant before) {
    long removed = 0;
    for (var entry : slots.entrySet()) {
      Slot slot = entry.getValue();
      synchronized (slot) {
        InboxRecord record = slot.record;
        if (!slot.removed
            && record != null
            && record.state() == RecordState.DONE
            && record.updatedAt().isBefore(before)
            && (consumer == null || consumer.equals(record.consumer()))) {
          slot.removed = true;
          slots.remove(entry.getKey(), slot);
          removed++;
        }
      }
    }
    return removed;
  }

  private interface Transition {
    InboxRecord apply(InboxRecord current, Instant now);
  }

  private InboxRecord fenced(Claim claim, Transition transition) {
    Objects.requireNonNull(claim, "claim");
    Slot slot = slots.get(new Key(claim.consumer(), claim.messageId()));
    if (slot == null) {
      throw new UnknownClaimException(claim, "no record exists for this key");
    }
    synchronized (slot) {
      InboxRecord current = slot.removed ? null : slot.record;
      if (current == null) {
        throw new UnknownClaimException(claim, "no record exists for this key");
      }
      if (claim.fencingToken() > current.attempts()) {
        throw new UnknownClaimException(
            claim, "the record has only reached attempt " + current.attempts());
      }
      if (current.state() != RecordState.PROCESSING || current.attempts() != claim.fencingToken()) {
        throw new LeaseLostException(claim, current.state(), current.attempts());
      }
      slot.record = transition.apply(current, clock.instant());
      return slot.record;
    }
  }

  private static void requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + d);
    }
  }
}
