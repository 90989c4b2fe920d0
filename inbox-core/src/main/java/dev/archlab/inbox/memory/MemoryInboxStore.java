package dev.archlab.inbox.memory;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.store.RecordStateMachine;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe in-memory store for one process: the embedded default for tests, demos and
 * single-instance consumers whose effects need no durable dedup record. Records are lost when the
 * process ends.
 *
 * <p>Every decision is one atomic compare-and-set on the message's own entry, so operations on
 * different message ids never wait for each other and there is no global lock: a new id costs a
 * lookup and a {@code ConcurrentHashMap.putIfAbsent}, and every later change of its record one
 * compare-and-set that locks nothing, not even the map's hash bin. Memory stays bounded only if
 * {@link #prune(Instant)} is called (for example by {@link IdempotentConsumer#pruneExpired()} on a
 * schedule).
 *
 * <p>Time comes from the {@link Clock} or {@link InstantSource} given at construction, read exactly
 * at each claim and transition, so tests can move it. A store made with {@link #MemoryInboxStore()}
 * reads a coarser clock instead: wall time refreshed every millisecond by a daemon thread (which
 * stops after about a second without use), because reading the wall clock twice per message cost as
 * much as the rest of a claim and its completion. Lease precision of that store: every time it
 * stamps (claim, lease end, completion, {@link #currentTime()}) lags the wall clock by at most one
 * millisecond plus however long that thread waits for a CPU, and is never ahead of it. So a lease
 * may end that much earlier than the wall clock would say, a takeover judged on the same clock is
 * never early by it, and a DONE record's dedup window counts from at most that much before its
 * completion: negligible next to leases of seconds and windows of hours, and the reason to pass
 * {@link Clock#systemUTC()} if a lease of a few milliseconds must hold to the millisecond.
 */
public final class MemoryInboxStore implements InboxStore {

  private final InstantSource clock;

  /** Slots by consumer, then by message id. */
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Slot>> byConsumer =
      new ConcurrentHashMap<>();

  /**
   * The consumer used last and its slots: a store serves one consumer, or a few, so most calls skip
   * the outer lookup. Written only when the consumer changes.
   */
  private volatile ConsumerSlots lastUsed;

  private record ConsumerSlots(String consumer, ConcurrentHashMap<String, Slot> slots) {}

  /**
   * One message's place in the map. Its entry is immutable and replaced whole by compare-and-set on
   * the slot, which is cheaper than {@code ConcurrentHashMap.replace} (that locks the hash bin) and
   * needs no second lookup of the key. Only prune removes a slot, and only one whose entry is DONE,
   * a final state that no transition leaves: whoever still holds a removed slot reads a DONE
   * record, which is what the key held until the removal, and can change nothing through it.
   */
  private static final class Slot {
    private static final VarHandle ENTRY;

    static {
      try {
        ENTRY = MethodHandles.lookup().findVarHandle(Slot.class, "entry", Entry.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private volatile Entry entry;

    Slot(Entry entry) {
      this.entry = entry;
    }

    Entry entry() {
      return entry;
    }

    /** Replaces {@code expected}, the very entry read, with {@code next}; false if it changed. */
    boolean swap(Entry expected, Entry next) {
      return ENTRY.compareAndSet(this, expected, next);
    }
  }

  /**
   * A record without its key and with times as epoch nanoseconds: less than half the heap of an
   * {@link InboxRecord} and its three {@link Instant}s, which matters when millions are held.
   * Compared by identity, so a compare-and-set succeeds only on the very entry that was read.
   */
  private static final class Entry {
    private static final long NO_LEASE = Long.MIN_VALUE;

    final RecordState state;
    final int attempts;
    final long leaseUntil;
    final long createdAt;
    final long updatedAt;
    final String lastError;
    final String payloadHash;
    final byte[] result;

    Entry(
        RecordState state,
        int attempts,
        long leaseUntil,
        long createdAt,
        long updatedAt,
        String lastError,
        String payloadHash,
        byte[] result) {
      this.state = state;
      this.attempts = attempts;
      this.leaseUntil = leaseUntil;
      this.createdAt = createdAt;
      this.updatedAt = updatedAt;
      this.lastError = lastError;
      this.payloadHash = payloadHash;
      this.result = result;
    }

    Entry(InboxRecord r) {
      this(
          r.state(),
          r.attempts(),
          r.leaseUntil() == null ? NO_LEASE : nanos(r.leaseUntil()),
          nanos(r.createdAt()),
          nanos(r.updatedAt()),
          r.lastError(),
          r.payloadHash(),
          r.result());
    }

    /** This entry moved to {@code state} at {@code now}, with a lease ending at {@code until}. */
    Entry moved(RecordState newState, Instant now, Instant until, String error, byte[] res) {
      return new Entry(
          newState,
          attempts,
          until == null ? NO_LEASE : nanos(until),
          createdAt,
          nanos(now),
          error,
          payloadHash,
          res);
    }

    InboxRecord toRecord(String consumer, String messageId) {
      return toRecord(consumer, messageId, instant(updatedAt));
    }

    /** As {@link #toRecord(String, String)}, reusing {@code updated} (equal to updatedAt). */
    InboxRecord toRecord(String consumer, String messageId, Instant updated) {
      return new InboxRecord(
          consumer,
          messageId,
          state,
          attempts,
          leaseUntil == NO_LEASE ? null : instant(leaseUntil),
          createdAt == updatedAt ? updated : instant(createdAt),
          updated,
          lastError,
          payloadHash,
          result);
    }

    private static long nanos(Instant t) {
      try {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
      } catch (ArithmeticException e) {
        throw new IllegalStateException(
            "the memory store keeps times between the years 1678 and 2262; got " + t, e);
      }
    }

    private static Instant instant(long nanos) {
      return Instant.ofEpochSecond(
          Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }
  }

  /**
   * A store on the system UTC clock read once per millisecond by a shared daemon thread: times lag
   * the wall clock by about a millisecond, never lead it (see the class description).
   */
  public MemoryInboxStore() {
    this(TickingClock.SYSTEM_UTC);
  }

  /**
   * A store whose leases and timestamps follow {@code clock}.
   *
   * @param clock the store's clock
   * @throws NullPointerException if {@code clock} is null
   */
  public MemoryInboxStore(Clock clock) {
    this((InstantSource) clock);
  }

  /**
   * A store whose leases and timestamps follow {@code clock}.
   *
   * @param clock the store's clock; only {@link InstantSource#instant()} is read
   * @throws NullPointerException if {@code clock} is null
   */
  public MemoryInboxStore(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    String consumer = request.consumer();
    String id = request.messageId();
    ConcurrentHashMap<String, Slot> slots = slotsOf(consumer);
    while (true) {
      Instant now = clock.instant();
      Slot slot = slots.get(id);
      if (slot == null) {
        Instant until = now.plus(request.lease());
        long nowNanos = Entry.nanos(now);
        Entry entry =
            new Entry(
                RecordState.PROCESSING,
                1,
                Entry.nanos(until),
                nowNanos,
                nowNanos,
                null,
                request.payloadHash(),
                null);
        if (slots.putIfAbsent(id, new Slot(entry)) == null) {
          InboxRecord fresh =
              new InboxRecord(
                  consumer,
                  id,
                  RecordState.PROCESSING,
                  1,
                  until,
                  now,
                  now,
                  null,
                  request.payloadHash(),
                  null);
          return BeginResult.of(Kind.CLAIMED, fresh, now);
        }
        continue; // another caller inserted it first: decide on theirs
      }
      Entry found = slot.entry();
      BeginResult decided = RecordStateMachine.begin(request, found.toRecord(consumer, id), now);
      if (!RecordStateMachine.writes(decided.kind())) {
        return decided;
      }
      if (slot.swap(found, new Entry(decided.record()))) {
        return decided;
      }
      // Changed since it was read: look again.
    }
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    ArgumentChecks.requireResultSize(result);
    return fenced(claim, Transition.DONE, null, result == null ? null : result.clone(), null);
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    ArgumentChecks.requireNonNegative(retryDelay, "retryDelay");
    return fenced(claim, Transition.RETRY, retryDelay, null, InboxRecord.boundError(error));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    return fenced(claim, Transition.PARK, null, null, InboxRecord.boundError(error));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    ArgumentChecks.requirePositive(lease, "lease");
    return fenced(claim, Transition.EXTEND, lease, null, null).toClaim();
  }

  @Override
  public long prune(Instant before) {
    Objects.requireNonNull(before, "before");
    long removed = 0;
    for (ConcurrentHashMap<String, Slot> slots : byConsumer.values()) {
      removed += pruneFrom(slots, before);
    }
    return removed;
  }

  @Override
  public long prune(String consumer, Instant before) {
    Identifiers.requireConsumerName(consumer);
    Objects.requireNonNull(before, "before");
    ConcurrentHashMap<String, Slot> slots = byConsumer.get(consumer);
    return slots == null ? 0 : pruneFrom(slots, before);
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    Entry entry = entryOf(slotsFor(consumer), messageId);
    return entry == null ? Optional.empty() : Optional.of(entry.toRecord(consumer, messageId));
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    Objects.requireNonNull(state, "state");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer);
    }
    ArgumentChecks.requireLimit(limit);
    List<InboxRecord> found = new ArrayList<>();
    for (Map.Entry<String, ConcurrentHashMap<String, Slot>> c : byConsumer.entrySet()) {
      if (consumer != null && !consumer.equals(c.getKey())) {
        continue;
      }
      for (Map.Entry<String, Slot> e : c.getValue().entrySet()) {
        Entry entry = e.getValue().entry();
        if (entry.state == state) {
          found.add(entry.toRecord(c.getKey(), e.getKey()));
        }
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

  /**
   * Number of records held, for tests and gauges.
   *
   * @return the records of every consumer and state, capped at {@link Integer#MAX_VALUE}
   */
  public int size() {
    long total = 0;
    for (ConcurrentHashMap<String, Slot> slots : byConsumer.values()) {
      total += slots.mappingCount();
    }
    return (int) Math.min(Integer.MAX_VALUE, total);
  }

  /** The slots of {@code consumer}, made on first use. */
  private ConcurrentHashMap<String, Slot> slotsOf(String consumer) {
    ConcurrentHashMap<String, Slot> slots = slotsFor(consumer);
    if (slots == null) {
      // Looked up first: computeIfAbsent may lock the hash bin even when the key is present.
      slots = byConsumer.computeIfAbsent(consumer, k -> new ConcurrentHashMap<>());
      lastUsed = new ConsumerSlots(consumer, slots);
    }
    return slots;
  }

  /** The current entry for {@code messageId}, or null when the key has no record. */
  private static Entry entryOf(ConcurrentHashMap<String, Slot> slots, String messageId) {
    Slot slot = slots == null ? null : slots.get(messageId);
    return slot == null ? null : slot.entry();
  }

  private static long pruneFrom(ConcurrentHashMap<String, Slot> slots, Instant before) {
    long beforeNanos = Entry.nanos(before);
    long removed = 0;
    for (Map.Entry<String, Slot> e : slots.entrySet()) {
      Slot slot = e.getValue();
      Entry entry = slot.entry();
      // DONE is final, so the entry read is the slot's last; remove(key, slot) leaves alone a
      // slot that replaced it meanwhile.
      if (entry.state == RecordState.DONE
          && entry.updatedAt < beforeNanos
          && slots.remove(e.getKey(), slot)) {
        removed++;
      }
    }
    return removed;
  }

  /**
   * The fenced transitions, named rather than passed as capturing lambdas: complete runs once per
   * message, and allocating a lambda per call was a measurable share of its cost.
   */
  private enum Transition {
    DONE,
    RETRY,
    PARK,
    EXTEND
  }

  /**
   * Applies a fenced transition if {@code claim} still owns its record, as one compare-and-set on
   * the record it checked. {@code delay} is the retry delay or the new lease, {@code result} the
   * kept result of a completion, {@code error} the bounded error of a failure or parking.
   */
  private InboxRecord fenced(
      Claim claim, Transition transition, Duration delay, byte[] result, String error) {
    Objects.requireNonNull(claim, "claim");
    ConcurrentHashMap<String, Slot> slots = slotsFor(claim.consumer());
    Slot slot = slots == null ? null : slots.get(claim.messageId());
    while (true) {
      Entry found = slot == null ? null : slot.entry();
      if (found == null) {
        throw RecordStateMachine.refusal(claim, null);
      }
      if (!RecordStateMachine.owns(claim, found.state, found.attempts)) {
        throw RecordStateMachine.refusal(claim, found.state, found.attempts);
      }
      Instant now = clock.instant();
      Entry next;
      switch (transition) {
        case DONE:
          next = found.moved(RecordState.DONE, now, null, found.lastError, result);
          break;
        case RETRY:
          next = found.moved(RecordState.PROCESSING, now, now.plus(delay), error, found.result);
          break;
        case PARK:
          next = found.moved(RecordState.DEAD, now, null, error, found.result);
          break;
        case EXTEND:
        default:
          next =
              found.moved(
                  RecordState.PROCESSING, now, now.plus(delay), found.lastError, found.result);
          break;
      }
      if (slot.swap(found, next)) {
        return next.toRecord(claim.consumer(), claim.messageId(), now);
      }
      // Changed since it was read (an extension racing a completion): check again.
    }
  }

  /** The slots of {@code consumer}, or null if it has none; never makes them. */
  private ConcurrentHashMap<String, Slot> slotsFor(String consumer) {
    ConsumerSlots last = lastUsed;
    if (last != null && last.consumer().equals(consumer)) {
      return last.slots();
    }
    ConcurrentHashMap<String, Slot> slots = byConsumer.get(consumer);
    if (slots != null) {
      lastUsed = new ConsumerSlots(consumer, slots);
    }
    return slots;
  }
}
