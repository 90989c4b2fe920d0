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
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.ModelAction.Advance;
import dev.archlab.inbox.testkit.ModelAction.Begin;
import dev.archlab.inbox.testkit.ModelAction.Call;
import dev.archlab.inbox.testkit.ModelAction.ClaimRef;
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
 * <p>With a store clock that moves in real time, the model's clock follows the store's: it catches
 * up with the store's {@code currentTime()} plus all time advanced before every action and again
 * right after every store answer, so the two sides decide with, and are viewed from, times at most
 * one call apart. A call whose decision lies within {@link #CLOSE_CALL} of a lease end or prune
 * cut-off is delayed until it is clear (this only waits; nothing is asserted about timing).
 */
final class ModelRun {

  /** How far apart two times may be with a moving store clock; they must be equal otherwise. */
  static final Duration MOVING_CLOCK_TOLERANCE = Duration.ofMillis(400);

  /**
   * With a moving store clock, a lease end or prune cut-off closer than this to the model's "now"
   * is a close call: the call waits until it is clear.
   */
  private static final Duration CLOSE_CALL = Duration.ofMillis(100);

  private static final int LIST_ALL = 1000;

  private final StoreFixture fixture;
  private final InboxStore store;
  private final InboxModel model;
  private final Map<String, List<Claim>> issued = new HashMap<>();
  private final List<String> trace = new ArrayList<>();
  private final ModelCoverage coverage;

  /** Whether the store's clock moves in real time; the model's then follows it. */
  private final boolean clockMoves;

  /** How far two times may be apart; zero with a clock that stands still. */
  private final Duration tolerance;

  /** The model's time at the start; with a moving clock also the store's. */
  private final Instant start;

  /** All time moved through {@link Advance} so far. */
  private Duration advanced = Duration.ZERO;

  ModelRun(StoreFixture fixture, boolean clockMoves, ModelCoverage coverage) {
    this.coverage = coverage;
    this.fixture = fixture;
    this.store = fixture.store();
    this.clockMoves = clockMoves;
    this.tolerance = clockMoves ? MOVING_CLOCK_TOLERANCE : Duration.ZERO;
    this.start = store.currentTime();
    this.model = new InboxModel(start);
  }

  void step(ModelAction action) {
    catchUpWithStoreClock();
    if (action instanceof Advance advance) {
      Duration by = Duration.ofMillis(advance.millis());
      fixture.advanceTime(by);
      model.advance(by);
      advanced = advanced.plus(by);
      trace.add(action.toString());
    } else if (action instanceof ListRecords list) {
      checkList(list);
    } else {
      Call call = (Call) action;
      Claim claim = call.claimRef() == null ? null : resolve(call.claimRef());
      String waited = waitOutCloseCall(call);
      Answer modelAnswer = Answer.of(model, call, claim);
      Answer storeAnswer = Answer.of(store, call, claim);
      Instant storeNow = storeNowAfterAnswer();
      ModelObservation expected = observe(modelAnswer, model.currentTime(), call);
      ModelObservation actual = observe(storeAnswer, storeNow, call);
      trace.add(
          call
              + (claim == null ? "" : " using " + describe(claim))
              + waited
              + "\n       -> "
              + actual);
      if (!expected.agreesWith(actual, tolerance)) {
        throw failure("the store's answer differs from the model's", expected, actual);
      }
      if (actual.claim() != null) {
        issued.computeIfAbsent(keyOf(actual.claim()), k -> new ArrayList<>()).add(actual.claim());
      }
      // Counts how often each decision and refusal was reached, for the coverage check.
      coverage.record(call.getClass().getSimpleName(), category(actual.outcome()));
    }
  }

  /**
   * With a moving store clock, moves the model's clock up to the store's clock plus all time
   * advanced, so that the model's "now" is the store's "now" in the model's frame (stored
   * timestamps were shifted back by what was advanced). Called before every action, so the model
   * decides with the store's current time.
   */
  private void catchUpWithStoreClock() {
    if (clockMoves) {
      catchUpWith(store.currentTime());
    }
  }

  /**
   * The store's "now", read right after the store answered, to view its answer from; with a moving
   * store clock the model's clock catches up with it, so that the model's answer is viewed from the
   * same moment (the model's decision was already made with its earlier "now").
   */
  private Instant storeNowAfterAnswer() {
    Instant now = store.currentTime();
    if (clockMoves) {
      catchUpWith(now);
    }
    return now;
  }

  /** Moves the model's clock to {@code storeNow} plus all time advanced; never back. */
  private void catchUpWith(Instant storeNow) {
    Duration behind = Duration.between(model.currentTime(), storeNow.plus(advanced));
    if (!behind.isNegative()) {
      model.advance(behind);
    }
  }

  /**
   * With a moving store clock, waits while the model sees {@code call} as a close call (see {@link
   * #isCloseCall}), so that the real time passing during the call cannot tip the store to the other
   * side. Returns a note for the trace, empty if it did not wait.
   */
  private String waitOutCloseCall(Call call) {
    if (!clockMoves) {
      return "";
    }
    int waits = 0;
    while (waits < 10 && isCloseCall(call)) {
      waits++;
      try {
        Thread.sleep(CLOSE_CALL.multipliedBy(2).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting out a close call", e);
      }
      catchUpWithStoreClock();
    }
    return waits == 0 ? "" : " (after waiting out a close call " + waits + " time(s))";
  }

  /**
   * Whether the model's "now" is within {@link #CLOSE_CALL} of a line {@code call} decides on: the
   * lease end of the key a begin meets, or the updatedAt of a DONE record a prune may delete. For a
   * lease end this can only matter once the try has run for about a second: with whole-second
   * durations, the model's distance to a lease end is a whole number of seconds plus the real time
   * since the lease was written, and at zero whole seconds both sides are past it (real time only
   * moves forward, on both).
   */
  private boolean isCloseCall(Call call) {
    Instant now = model.currentTime();
    if (call instanceof Begin b) {
      Duration sinceStart = Duration.between(start, now).minus(advanced);
      InboxRecord r = model.find(CONSUMERS.get(b.consumer()), MESSAGE_IDS.get(b.id())).orElse(null);
      return r != null
          && r.state() == RecordState.PROCESSING
          && Duration.between(r.leaseUntil(), now).abs().compareTo(CLOSE_CALL) < 0
          && sinceStart.compareTo(Duration.ofSeconds(1).minus(CLOSE_CALL)) >= 0;
    }
    String consumer;
    long agoMillis;
    if (call instanceof Prune p) {
      consumer = null;
      agoMillis = p.agoMillis();
    } else if (call instanceof PruneConsumer p) {
      consumer = CONSUMERS.get(p.consumer());
      agoMillis = p.agoMillis();
    } else {
      return false;
    }
    Instant before = now.minusMillis(agoMillis);
    for (InboxRecord r : model.list(RecordState.DONE, consumer, LIST_ALL)) {
      if (Duration.between(before, r.updatedAt()).abs().compareTo(CLOSE_CALL) < 0) {
        return true;
      }
    }
    return false;
  }

  /** Every record in the key pool and every list, compared with the model. */
  void compareAllRecords() {
    for (String consumer : CONSUMERS) {
      for (String id : MESSAGE_IDS) {
        List<InboxRecord> got = store.find(consumer, id).stream().toList();
        ModelObservation actual = records(got, storeNowAfterAnswer());
        ModelObservation expected =
            records(model.find(consumer, id).stream().toList(), model.currentTime());
        if (!expected.agreesWith(actual, tolerance)) {
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
        Instant storeNow = storeNowAfterAnswer();
        requireOldestFirst(what, got, storeNow);
        // Order among equal createdAt is open, so compare as sets sorted by key.
        ModelObservation actual = records(byKey(got), storeNow);
        ModelObservation expected =
            records(byKey(model.list(state, consumer, LIST_ALL)), model.currentTime());
        if (!expected.agreesWith(actual, tolerance)) {
          throw failure(what + " differs", expected, actual);
        }
      }
    }
  }

  /**
   * A limited list must hold min(limit, n) matching records, oldest first, and no record left out
   * may be older than one returned.
   */
  private void checkList(ListRecords list) {
    List<InboxRecord> got = store.list(list.state(), list.consumerName(), list.limit());
    Instant storeNow = storeNowAfterAnswer();
    List<InboxRecord> all = model.list(list.state(), list.consumerName(), LIST_ALL);
    Instant modelNow = model.currentTime();
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
      if (!one.agreesWith(records(List.of(r), storeNow), tolerance)) {
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

  private AssertionError failure(String what, ModelObservation expected, ModelObservation actual) {
    StringBuilder message = new StringBuilder(what);
    if (expected != null) {
      message.append("\n  model: ").append(expected);
    }
    message.append("\n  store: ").append(actual);
    message
        .append("\n  (times are relative to each side's now")
        .append(clockMoves ? " and compared within " + seconds(tolerance.toMillis()) : "")
        .append(")\nactions so far:");
    for (int i = 0; i < trace.size(); i++) {
      message.append(String.format("%n  %2d. %s", i + 1, trace.get(i)));
    }
    return new AssertionError(message.toString());
  }
}
