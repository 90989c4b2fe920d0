package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reference model for {@link InboxStoreModelTest}: docs/DESIGN.md §3–4 written as plainly as
 * possible, one map and one "now", no concurrency and no input validation (the model test only
 * feeds it legal input). It implements {@link InboxStore} only so the model test can send the same
 * call to the model and to the store under test; it is not a store anybody should use.
 *
 * <p>It is deliberately independent of {@code MemoryInboxStore}: sharing code would let a bug in
 * one hide in the other.
 */
final class InboxModel implements InboxStore {

  /**
   * Stands for "some non-null error text the store chooses": the design (docs/DESIGN.md §3) says a
   * record that dies of repeated crashes gets an error, but not which words.
   */
  static final String ANY_ERROR = "<any non-null error>";

  private record Key(String consumer, String messageId) {}

  private final Map<Key, InboxRecord> records = new HashMap<>();
  private Instant now;

  InboxModel(Instant start) {
    this.now = start;
  }

  /** Moves the model's clock; called in lock-step with the fixture's {@code advanceTime}. */
  void advance(Duration duration) {
    now = now.plus(duration);
  }

  /**
   * A copy of this model standing at {@code instant}: the same records, its own map and clock, so a
   * call on the copy leaves this model untouched. Used to ask what the model would answer had the
   * call been decided at {@code instant}.
   */
  InboxModel copyAt(Instant instant) {
    InboxModel copy = new InboxModel(instant);
    copy.records.putAll(records);
    return copy;
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    Key key = new Key(request.consumer(), request.messageId());
    InboxRecord r = records.get(key);
    if (r == null) {
      InboxRecord created =
          new InboxRecord(
              key.consumer(),
              key.messageId(),
              RecordState.PROCESSING,
              1,
              now.plus(request.lease()),
              now,
              now,
              null,
              request.payloadHash(),
              null);
      records.put(key, created);
      return BeginResult.of(Kind.CLAIMED, created, now);
    }
    // The payload check comes before the state: a reused id is an error even for a DONE record.
    if (request.payloadHash() != null
        && r.payloadHash() != null
        && !request.payloadHash().equals(r.payloadHash())) {
      throw new PayloadMismatchException(key.consumer(), key.messageId());
    }
    if (r.state() == RecordState.DONE) {
      return BeginResult.of(Kind.DUPLICATE, r, now);
    }
    if (r.state() == RecordState.DEAD) {
      return BeginResult.of(Kind.DEAD, r, now);
    }
    if (now.isBefore(r.leaseUntil())) {
      return BeginResult.of(Kind.IN_FLIGHT, r, now);
    }
    if (r.attempts() >= request.maxAttempts()) {
      InboxRecord died = change(r, RecordState.DEAD, r.attempts(), null, ANY_ERROR, r.result());
      records.put(key, died);
      return BeginResult.of(Kind.DIED, died, now);
    }
    InboxRecord taken =
        change(
            r,
            RecordState.PROCESSING,
            r.attempts() + 1,
            now.plus(request.lease()),
            null,
            r.result());
    records.put(key, taken);
    return BeginResult.of(r.lastError() != null ? Kind.RETRIED : Kind.TAKEN_OVER, taken, now);
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    InboxRecord r = current(claim);
    return put(change(r, RecordState.DONE, r.attempts(), null, r.lastError(), result));
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    InboxRecord r = current(claim);
    return put(
        change(
            r,
            RecordState.PROCESSING,
            r.attempts(),
            now.plus(retryDelay),
            InboxRecord.boundError(error),
            r.result()));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    InboxRecord r = current(claim);
    return put(
        change(r, RecordState.DEAD, r.attempts(), null, InboxRecord.boundError(error), r.result()));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    InboxRecord r = current(claim);
    return put(change(
            r, RecordState.PROCESSING, r.attempts(), now.plus(lease), r.lastError(), r.result()))
        .toClaim();
  }

  @Override
  public long prune(Instant before) {
    return pruneWhere(null, before);
  }

  @Override
  public long prune(String consumer, Instant before) {
    return pruneWhere(consumer, before);
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    return Optional.ofNullable(records.get(new Key(consumer, messageId)));
  }

  /**
   * Oldest {@code createdAt} first. Ties are broken by key here, but the contract leaves them open,
   * so the model test never relies on the order of records created at the same instant.
   */
  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    List<InboxRecord> found = new ArrayList<>();
    for (InboxRecord r : records.values()) {
      if (r.state() == state && (consumer == null || consumer.equals(r.consumer()))) {
        found.add(r);
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
    return now;
  }

  /**
   * The record a fenced call may change, or the exception the contract (docs/DESIGN.md §4)
   * prescribes: unknown when the key or the token was never issued, lease lost when the token is
   * old or the record left PROCESSING.
   */
  private InboxRecord current(Claim claim) {
    InboxRecord r = records.get(new Key(claim.consumer(), claim.messageId()));
    if (r == null) {
      throw new UnknownClaimException(claim, "model: no record");
    }
    if (claim.fencingToken() > r.attempts()) {
      throw new UnknownClaimException(claim, "model: token never issued");
    }
    if (r.state() != RecordState.PROCESSING || r.attempts() != claim.fencingToken()) {
      throw new LeaseLostException(claim, r.state(), r.attempts());
    }
    return r;
  }

  private InboxRecord put(InboxRecord r) {
    records.put(new Key(r.consumer(), r.messageId()), r);
    return r;
  }

  /** A changed record: createdAt and payloadHash are kept, updatedAt becomes now. */
  private InboxRecord change(
      InboxRecord r,
      RecordState state,
      int attempts,
      Instant leaseUntil,
      String lastError,
      byte[] result) {
    return new InboxRecord(
        r.consumer(),
        r.messageId(),
        state,
        attempts,
        leaseUntil,
        r.createdAt(),
        now,
        lastError,
        r.payloadHash(),
        result);
  }

  private long pruneWhere(String consumer, Instant before) {
    long removed = 0;
    for (var it = records.values().iterator(); it.hasNext(); ) {
      InboxRecord r = it.next();
      // Strictly before: a record updated exactly at the cut-off is still inside the window.
      if (r.state() == RecordState.DONE
          && r.updatedAt().isBefore(before)
          && (consumer == null || consumer.equals(r.consumer()))) {
        it.remove();
        removed++;
      }
    }
    return removed;
  }
}
