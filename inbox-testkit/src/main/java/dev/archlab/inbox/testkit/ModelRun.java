package dev.archlab.inbox.testkit;

import static dev.archlab.inbox.testkit.ModelFormat.CONSUMERS;
import static dev.archlab.inbox.testkit.ModelFormat.GHOST_ID;
import static dev.archlab.inbox.testkit.ModelFormat.MESSAGE_IDS;
import static dev.archlab.inbox.testkit.ModelFormat.describe;
import static dev.archlab.inbox.testkit.ModelFormat.keyOf;
import static dev.archlab.inbox.testkit.ModelFormat.micros;
import static dev.archlab.inbox.testkit.ModelFormat.seconds;
import static dev.archlab.inbox.testkit.ModelObservation.byKey;
import static dev.archlab.inbox.testkit.ModelObservation.observe;
import static dev.archlab.inbox.testkit.ModelObservation.records;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.ModelAction.Advance;
import dev.archlab.inbox.testkit.ModelAction.Begin;
import dev.archlab.inbox.testkit.ModelAction.Call;
import dev.archlab.inbox.testkit.ModelAction.ClaimRef;
import dev.archlab.inbox.testkit.ModelAction.Extend;
import dev.archlab.inbox.testkit.ModelAction.ListRecords;
import dev.archlab.inbox.testkit.ModelAction.Prune;
import dev.archlab.inbox.testkit.ModelAction.PruneConsumer;
import dev.archlab.inbox.testkit.ModelObservation.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One run of one action sequence: a fresh store, the model, the claims handed out so far and a
 * trace for failures. {@link #step} sends an action to both sides and throws an {@link
 * AssertionError} naming the difference, with the trace of every step so far, as soon as they
 * disagree; {@link #compareAllRecords} compares everything both sides hold.
 *
 * <p>Times are compared exactly, in the model's frame: a store time plus {@link #offset()}. With a
 * clock that stands still the store and the model decide at the same instant. With a store clock
 * that moves in real time the run reads the store's clock right before ({@code t0}) and right after
 * ({@code t1}) each call: the store decided at some instant in [t0, t1], and however long the call
 * took, the answer is accepted only if the model, asked at one such instant (t0, t1, the instant
 * the store's answer names, or an instant where a lease end or prune cut-off flips the decision),
 * gives exactly the same answer. The model then continues from that instant, so every timestamp the
 * store wrote must lie in [t0, t1] and later comparisons stay exact. No margin depends on how fast
 * the store or the machine is.
 */
final class ModelRun {

  private static final int LIST_ALL = 1000;

  private final StoreFixture fixture;
  private final InboxStore store;
  private InboxModel model;
  private final Map<String, List<Claim>> issued = new HashMap<>();
  private final List<String> trace = new ArrayList<>();
  private final ModelCoverage coverage;

  /** Whether the store's clock moves in real time; the model then follows it call by call. */
  private final boolean clockMoves;

  /** All time moved through {@link Advance} so far. */
  private Duration advanced = Duration.ZERO;

  ModelRun(StoreFixture fixture, boolean clockMoves, ModelCoverage coverage) {
    this.coverage = coverage;
    this.fixture = fixture;
    this.store = fixture.store();
    this.clockMoves = clockMoves;
    this.model = new InboxModel(store.currentTime());
  }

  void step(ModelAction action) {
    if (action instanceof Advance advance) {
      Duration by = Duration.ofMillis(advance.millis());
      fixture.advanceTime(by);
      model.advance(by);
      advanced = advanced.plus(by);
      trace.add(action.toString());
    } else if (action instanceof ListRecords list) {
      checkList(list);
    } else {
      call((Call) action);
    }
  }

  /**
   * Sends {@code call} to the store, then finds an instant in [t0, t1] at which the model answers
   * exactly the same, and continues with the model as that answer left it.
   */
  private void call(Call call) {
    Claim claim = call.claimRef() == null ? null : resolve(call.claimRef());
    Instant t0 = storeNow();
    Answer storeAnswer = Answer.of(store, call, claim);
    Instant t1 = storeNow();
    Instant from = t0.isBefore(model.currentTime()) ? model.currentTime() : t0;
    ModelObservation matched = null;
    for (Instant at : decisionInstants(call, storeAnswer, from, t1)) {
      InboxModel candidate = model.copyAt(at);
      ModelObservation expected = observe(Answer.of(candidate, call, claim), at, call);
      ModelObservation actual = observe(storeAnswer, at.minus(offset()), call);
      if (expected.agreesWith(actual)) {
        model = candidate;
        matched = actual;
        break;
      }
    }
    ModelObservation shown =
        matched != null ? matched : observe(storeAnswer, from.minus(offset()), call);
    trace.add(
        call
            + (claim == null ? "" : " using " + describe(claim))
            + (clockMoves ? " [call took " + millisBetween(t0, t1) + "]" : "")
            + "\n       -> "
            + shown);
    if (matched == null) {
      // Shown from t0 on both sides, so the reader sees where the store's times fall.
      ModelObservation atStart = observe(Answer.of(model.copyAt(from), call, claim), from, call);
      ModelObservation atEnd = observe(Answer.of(model.copyAt(t1), call, claim), from, call);
      String expected =
          clockMoves && !t1.equals(from)
              ? atStart + "\n  model at t1 (" + millisBetween(from, t1) + " later): " + atEnd
              : atStart.toString();
      throw failure(
          clockMoves
              ? "the store's answer differs from the model's at every instant the store could"
                  + " have decided at"
              : "the store's answer differs from the model's",
          expected,
          shown);
    }
    if (matched.claim() != null) {
      issued.computeIfAbsent(keyOf(matched.claim()), k -> new ArrayList<>()).add(matched.claim());
    }
    // Counts how often each decision and refusal was reached, for the coverage check.
    coverage.record(call.getClass().getSimpleName(), category(matched.outcome()));
  }

  /**
   * The instants in [{@code from}, {@code to}] worth asking the model at: both ends, the instant
   * the store's answer says it decided at (a begin's store time, the updatedAt it wrote, an
   * extended lease end minus the lease), and every instant in between where a decision that is
   * monotone in time flips (the lease end of the record a begin meets; the first instant a DONE
   * record falls before a prune's cut-off). Between two such instants the model's decision does not
   * change, so these cover every answer the model could give in [from, to]. With a clock that
   * stands still, only the model's "now".
   */
  private List<Instant> decisionInstants(Call call, Answer storeAnswer, Instant from, Instant to) {
    if (!clockMoves) {
      return List.of(model.currentTime());
    }
    List<Instant> instants = new ArrayList<>();
    Instant named = namedInstant(call, storeAnswer);
    if (named != null) {
      instants.add(named.plus(offset()));
    }
    instants.add(from);
    instants.add(to);
    if (call instanceof Begin b) {
      model
          .find(CONSUMERS.get(b.consumer()), MESSAGE_IDS.get(b.id()))
          .filter(r -> r.state() == RecordState.PROCESSING)
          .ifPresent(r -> instants.add(r.leaseUntil()));
    } else if (call instanceof Prune p) {
      addPruneFlips(instants, null, p.agoMillis());
    } else if (call instanceof PruneConsumer p) {
      addPruneFlips(instants, CONSUMERS.get(p.consumer()), p.agoMillis());
    }
    return instants.stream().filter(t -> !t.isBefore(from) && !t.isAfter(to)).distinct().toList();
  }

  /** A DONE record goes once the cut-off, now minus {@code agoMillis}, is past its updatedAt. */
  private void addPruneFlips(List<Instant> instants, String consumer, long agoMillis) {
    for (InboxRecord r : model.list(RecordState.DONE, consumer, LIST_ALL)) {
      instants.add(r.updatedAt().plusMillis(agoMillis).plusNanos(1));
    }
  }

  /** The store-clock instant the store's answer says it decided at, or null if it names none. */
  private static Instant namedInstant(Call call, Answer answer) {
    Object value = answer.value();
    if (value instanceof BeginResult r) {
      return r.storeTime();
    }
    if (value instanceof InboxRecord r) {
      return r.updatedAt();
    }
    if (value instanceof Claim c && call instanceof Extend e && c.leaseUntil() != null) {
      return c.leaseUntil().minusMillis(e.leaseMillis());
    }
    return null;
  }

  /**
   * The store's "now" in the model's frame: with a moving store clock the fixture moves time by
   * shifting stored timestamps back, so the store's times lag the model's by all time advanced.
   * With a clock that stands still the model's own "now", which is the store's.
   */
  private Instant storeNow() {
    return clockMoves ? store.currentTime().plus(offset()) : model.currentTime();
  }

  /** What to add to a store time to get the same instant in the model's frame. */
  private Duration offset() {
    return clockMoves ? advanced : Duration.ZERO;
  }

  private static String millisBetween(Instant from, Instant to) {
    return seconds(Duration.between(from, to).toMillis());
  }

  /**
   * Every record in the key pool and every list, compared with the model. Reads decide nothing, so
   * times are compared exactly: both sides are viewed from the model's "now" (the instant of its
   * last decision), the store's through {@link #offset()}.
   */
  void compareAllRecords() {
    Instant modelNow = model.currentTime();
    Instant storeView = modelNow.minus(offset());
    for (String consumer : CONSUMERS) {
      for (String id : MESSAGE_IDS) {
        List<InboxRecord> got = store.find(consumer, id).stream().toList();
        ModelObservation actual = records(got, storeView);
        ModelObservation expected = records(model.find(consumer, id).stream().toList(), modelNow);
        if (!expected.agreesWith(actual)) {
          throw failure("find(" + consumer + "/" + id + ") differs", expected, actual);
        }
      }
    }
    List<String> consumers = new ArrayList<>(CONSUMERS);
    consumers.add(null);
    for (RecordState state : RecordState.values()) {
      for (String consumer : consumers) {
        String what = "list(" + state + ", " + (consumer == null ? "all" : consumer) + ")";
        List<InboxRecord> got = store.list(state, consumer, LIST_ALL);
        requireOldestFirst(what, got, storeView);
        // Order among equal createdAt is open, so compare as sets sorted by key.
        ModelObservation actual = records(byKey(got), storeView);
        ModelObservation expected = records(byKey(model.list(state, consumer, LIST_ALL)), modelNow);
        if (!expected.agreesWith(actual)) {
          throw failure(what + " differs", expected, actual);
        }
      }
    }
  }

  /**
   * A limited list must hold min(limit, n) matching records, oldest first, and no record left out
   * may be older than one returned. Times are viewed as in {@link #compareAllRecords}.
   */
  private void checkList(ListRecords list) {
    List<InboxRecord> got = store.list(list.state(), list.consumerName(), list.limit());
    Instant modelNow = model.currentTime();
    Instant storeNow = modelNow.minus(offset());
    List<InboxRecord> all = model.list(list.state(), list.consumerName(), LIST_ALL);
    trace.add(list + "\n       -> " + records(got, storeNow));
    String what = list.toString();
    requireOldestFirst(what, got, storeNow);
    ModelObservation expectedAll = records(all, modelNow);
    ModelObservation actual = records(got, storeNow);
    if (got.size() != Math.min(list.limit(), all.size())) {
      throw failure(what + " returned the wrong number of records", expectedAll, actual);
    }
    Map<String, InboxRecord> modelByKey = new HashMap<>();
    all.forEach(r -> modelByKey.put(keyOf(r), r));
    Set<String> returned = new HashSet<>();
    Instant newestReturned = null;
    for (InboxRecord r : got) {
      InboxRecord m = modelByKey.get(keyOf(r));
      if (m == null || !returned.add(keyOf(r))) {
        throw failure(what + " returned an unexpected or repeated record", expectedAll, actual);
      }
      ModelObservation one = records(List.of(m), modelNow);
      if (!one.agreesWith(records(List.of(r), storeNow))) {
        throw failure(what + " returned a record that differs", one, actual);
      }
      newestReturned = m.createdAt();
    }
    for (InboxRecord m : all) {
      if (newestReturned != null
          && !returned.contains(keyOf(m))
          && micros(m.createdAt()).isBefore(micros(newestReturned))) {
        throw failure(what + " skipped an older record", expectedAll, actual);
      }
    }
  }

  private void requireOldestFirst(String what, List<InboxRecord> got, Instant storeNow) {
    for (int i = 1; i < got.size(); i++) {
      if (micros(got.get(i).createdAt()).isBefore(micros(got.get(i - 1).createdAt()))) {
        throw failure(what + " is not ordered by createdAt", null, records(got, storeNow));
      }
    }
  }

  /** Turns a claim reference into a concrete claim, from what the store has handed out. */
  private Claim resolve(ClaimRef ref) {
    String consumer = CONSUMERS.get(ref.consumer());
    // Stores fence on the token only; the lease end a claim carries is informational.
    Instant anyLease = store.currentTime();
    if (ref.kind() == ClaimRef.Kind.GHOST) {
      return new Claim(consumer, GHOST_ID, ref.depth(), anyLease);
    }
    String id = MESSAGE_IDS.get(ref.id());
    List<Claim> history = issued.getOrDefault(consumer + "/" + id, List.of());
    switch (ref.kind()) {
      case LATEST:
        if (!history.isEmpty()) {
          return history.get(history.size() - 1);
        }
        break;
      case STALE:
        if (!history.isEmpty()) {
          return history.get(Math.max(0, history.size() - 1 - ref.depth()));
        }
        break;
      case FORGED:
        int highest = model.find(consumer, id).map(InboxRecord::attempts).orElse(0);
        for (Claim c : history) {
          highest = Math.max(highest, c.fencingToken());
        }
        return new Claim(consumer, id, highest + ref.depth(), anyLease);
      default:
        break;
    }
    return new Claim(consumer, id, 1, anyLease);
  }

  private static String category(String outcome) {
    if (outcome.startsWith("extended")) {
      return "extended";
    }
    if (outcome.startsWith("pruned ")) {
      return outcome.equals("pruned 0") ? "pruned none" : "pruned some";
    }
    return outcome;
  }

  private AssertionError failure(String what, Object expected, ModelObservation actual) {
    StringBuilder message = new StringBuilder(what);
    if (expected != null) {
      message.append("\n  model: ").append(expected);
    }
    message.append("\n  store: ").append(actual);
    message
        .append("\n  (times are relative to one instant, the same on both sides")
        .append(clockMoves ? "; the store's clock moves, every call is timed t0..t1" : "")
        .append(")\nactions so far:");
    for (int i = 0; i < trace.size(); i++) {
      message.append(String.format("%n  %2d. %s", i + 1, trace.get(i)));
    }
    return new AssertionError(message.toString());
  }
}
