package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * A model-based property test every {@link InboxStore} must pass: random sequences of begin,
 * complete, fail, mark-dead, extend, prune, find, list and clock moves are sent both to a fresh
 * store and to a small reference model of SPEC §3, and after every action the two must agree on
 * what was returned or thrown and on every record they hold.
 *
 * <p>Guarantees, for a store that passes:
 *
 * <ul>
 *   <li>{@code begin} takes the SPEC decision (CLAIMED, DUPLICATE, DEAD, IN_FLIGHT, TAKEN_OVER,
 *       DIED, payload mismatch) in every reachable state, including exactly at a lease end;
 *   <li>fenced calls accept only the current claim: stale claims get {@code LeaseLostException},
 *       claims the store never issued get {@code UnknownClaimException}, and neither changes
 *       anything;
 *   <li>{@code prune} deletes exactly the DONE records updated strictly before the cut-off, for all
 *       consumers or one, and reports how many;
 *   <li>{@code find} and {@code list} show state, attempts, lease end, timestamps, error, payload
 *       hash and kept result as the model says, and {@code list} returns the oldest records first
 *       up to its limit.
 * </ul>
 *
 * <p>Times are compared relative to each side's "now" and truncated to microseconds, so a database
 * that keeps microseconds passes, and a fixture may implement {@link StoreFixture#advanceTime}
 * either by moving the clock or by shifting stored timestamps back. How exactly depends on the
 * store's clock:
 *
 * <ul>
 *   <li><b>A clock that stands still between actions</b> (a {@link MutableClock}; the default):
 *       generated durations are whole milliseconds, mostly whole seconds, so the clock often lands
 *       exactly on a lease end or a prune cut-off, and every time must agree exactly.
 *   <li><b>A clock that moves in real time</b> (a database's {@code now()}; the subclass overrides
 *       {@link #storeClockMovesOnItsOwn()} to return {@code true}): the model's clock follows the
 *       store's, catching up with the store's {@code currentTime()} plus all time advanced before
 *       every action and again right after every store answer, so the two sides decide with, and
 *       are viewed from, times at most one call apart. Every generated duration is whole seconds
 *       and prune cut-offs lie half a second off that grid, so the real time that passes between a
 *       write and a later decision can tip the decision only when it is within a few milliseconds
 *       of a whole second (lease end) or a half second (cut-off), which takes a try longer than
 *       about half a second; the model sees such a close call coming and waits it out (200 ms)
 *       before the call. A begin exactly at a lease end (time advanced = lease) stays covered: real
 *       time only takes both sides past it. Times agree within 400 ms, under the one-second grid,
 *       so a time that is off by a generated duration still fails. What this mode cannot test is
 *       the exact instant (a record updated exactly at the prune cut-off, a lease end passed by a
 *       microsecond); the default mode covers that.
 * </ul>
 *
 * <p>To run it for a store, extend this class and implement {@link #newFixture()}. 200 tries of 1
 * to 60 actions run by default; a subclass may annotate itself with {@code @PropertyDefaults(tries
 * = ...)} to change that; keep at least 20 or so, because the property also checks that the
 * generator reached every {@code begin} decision and both fencing refusals. A failure shows the
 * shrunk action sequence and a trace of what the store answered at each step.
 */
@PropertyDefaults(tries = 200)
public abstract class InboxStoreModelProperties {

  // A small key space, so that actions keep hitting the same records and reach every state.
  static final List<String> CONSUMERS = List.of("orders", "billing");
  static final List<String> MESSAGE_IDS = List.of("m0", "m1", "m2");

  /** A message id no action ever begins, for claims on keys that do not exist. */
  static final String GHOST_ID = "ghost";

  private static final int MAX_ACTIONS = 60;
  private static final int LIST_ALL = 1000;

  /** How far apart two times may be with a moving store clock; they must be equal otherwise. */
  private static final Duration MOVING_CLOCK_TOLERANCE = Duration.ofMillis(400);

  /**
   * With a moving store clock, a lease end or prune cut-off closer than this to the model's "now"
   * is a close call: the call waits until it is clear.
   */
  private static final Duration CLOSE_CALL = Duration.ofMillis(100);

  /** Prune cut-offs with a moving store clock: this much after a whole second back from "now". */
  private static final long OFF_GRID_MILLIS = 500;

  /** A fresh, empty store for one try. Closed when the try ends. */
  protected abstract StoreFixture newFixture();

  /**
   * Whether the store's clock moves on its own between actions, like a database's {@code now()},
   * instead of standing still until {@link StoreFixture#advanceTime} moves it. {@code false} by
   * default; a store that returns {@code true} is tested on a whole-second grid with a tolerance,
   * as the class description explains, and a store that stands still is tested exactly.
   */
  protected boolean storeClockMovesOnItsOwn() {
    return false;
  }

  /**
   * Whether every record is compared after every action ({@code true}, the default) or only after
   * the last one. A slow store may turn this off; the answers of the actions are still compared at
   * every step.
   */
  protected boolean compareAllRecordsAfterEveryAction() {
    return true;
  }

  /** The store answers every action like the model and ends up holding the same records. */
  @Property
  public void storeBehavesLikeTheModel(@ForAll("actionSequences") List<Action> actions)
      throws Exception {
    try (StoreFixture fixture = newFixture()) {
      Run run = new Run(fixture, storeClockMovesOnItsOwn());
      for (int i = 0; i < actions.size(); i++) {
        run.step(actions.get(i));
        if (compareAllRecordsAfterEveryAction() || i == actions.size() - 1) {
          run.compareAllRecords();
        }
      }
    }
    // Guards the generator: a change that stopped reaching these would leave the property vacuous.
    Statistics.label("Begin")
        .coverage(
            c -> {
              for (BeginResult.Kind kind : BeginResult.Kind.values()) {
                c.check(kind.name()).count(n -> n > 0);
              }
              c.check("threw PayloadMismatchException").count(n -> n > 0);
            });
    Statistics.label("Complete")
        .coverage(
            c -> {
              c.check("ok").count(n -> n > 0);
              c.check("threw LeaseLostException").count(n -> n > 0);
              c.check("threw UnknownClaimException").count(n -> n > 0);
            });
  }

  // ---------------------------------------------------------------------------------------------
  // Actions. Each has a short toString because jqwik prints the (shrunk) list on failure.

  /** One generated step. */
  interface Action {}

  /** A step that calls the store; the model gets the identical call. */
  interface Call extends Action {
    Object applyTo(InboxStore target, Claim claim);

    /** Which claim the call uses, or null for calls that take none. */
    default ClaimRef claimRef() {
      return null;
    }
  }

  record Begin(int consumer, int id, long leaseMillis, int maxAttempts, String payloadHash)
      implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.begin(
          new BeginRequest(
              CONSUMERS.get(consumer),
              MESSAGE_IDS.get(id),
              Duration.ofMillis(leaseMillis),
              maxAttempts,
              payloadHash));
    }

    @Override
    public String toString() {
      return "begin("
          + key(consumer, id)
          + ", lease="
          + seconds(leaseMillis)
          + ", maxAttempts="
          + maxAttempts
          + (payloadHash == null ? "" : ", hash=" + payloadHash)
          + ")";
    }
  }

  record Complete(ClaimRef claimRef, byte[] result) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      // A copy per side, so neither can affect what the other receives.
      return target.complete(claim, result == null ? null : result.clone());
    }

    @Override
    public String toString() {
      return "complete(" + claimRef + ", result=" + hex(result) + ")";
    }
  }

  record Fail(ClaimRef claimRef, String error, long retryDelayMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.fail(claim, error, Duration.ofMillis(retryDelayMillis));
    }

    @Override
    public String toString() {
      return "fail(" + claimRef + ", '" + error + "', retry in " + seconds(retryDelayMillis) + ")";
    }
  }

  record MarkDead(ClaimRef claimRef, String error) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.markDead(claim, error);
    }

    @Override
    public String toString() {
      return "markDead(" + claimRef + ", '" + error + "')";
    }
  }

  record Extend(ClaimRef claimRef, long leaseMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.extend(claim, Duration.ofMillis(leaseMillis));
    }

    @Override
    public String toString() {
      return "extend(" + claimRef + ", lease=" + seconds(leaseMillis) + ")";
    }
  }

  record Prune(long agoMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.prune(target.currentTime().minusMillis(agoMillis));
    }

    @Override
    public String toString() {
      return "prune(before " + offset(Duration.ofMillis(-agoMillis)) + ")";
    }
  }

  record PruneConsumer(int consumer, long agoMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.prune(CONSUMERS.get(consumer), target.currentTime().minusMillis(agoMillis));
    }

    @Override
    public String toString() {
      return "prune("
          + CONSUMERS.get(consumer)
          + ", before "
          + offset(Duration.ofMillis(-agoMillis))
          + ")";
    }
  }

  record Find(int consumer, int id) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.find(CONSUMERS.get(consumer), MESSAGE_IDS.get(id));
    }

    @Override
    public String toString() {
      return "find(" + key(consumer, id) + ")";
    }
  }

  /** Moves the store's clock (through the fixture) and the model's clock by the same amount. */
  record Advance(long millis) implements Action {
    @Override
    public String toString() {
      return "advance(" + seconds(millis) + ")";
    }
  }

  /** A limited list; checked against the model with ties in {@code createdAt} left open. */
  record ListRecords(RecordState state, int consumer, int limit) implements Action {
    String consumerName() {
      return consumer < 0 ? null : CONSUMERS.get(consumer);
    }

    @Override
    public String toString() {
      return "list(" + state + ", " + (consumer < 0 ? "all" : consumerName()) + ", " + limit + ")";
    }
  }

  /**
   * Which claim a fenced call uses. LATEST is the last claim the store handed out for the key,
   * STALE an older one ({@code depth} steps back), FORGED a token above any the key has reached,
   * GHOST a key that never existed. A key with no claim yet gets a made-up first claim instead.
   */
  record ClaimRef(Kind kind, int consumer, int id, int depth) {
    enum Kind {
      LATEST,
      STALE,
      FORGED,
      GHOST
    }

    @Override
    public String toString() {
      switch (kind) {
        case LATEST:
          return "latest " + key(consumer, id);
        case STALE:
          return "stale-" + depth + " " + key(consumer, id);
        case FORGED:
          return "forged+" + depth + " " + key(consumer, id);
        default:
          return "ghost " + CONSUMERS.get(consumer) + "/" + GHOST_ID;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Generators.

  @Provide
  Arbitrary<List<Action>> actionSequences() {
    boolean wholeSeconds = storeClockMovesOnItsOwn();
    Arbitrary<Action> action =
        Arbitraries.frequencyOf(
            Tuple.of(8, begins(wholeSeconds)),
            Tuple.of(4, completes()),
            Tuple.of(3, fails(wholeSeconds)),
            Tuple.of(1, markDeads()),
            Tuple.of(2, extensions(wholeSeconds)),
            Tuple.of(1, prunes(wholeSeconds)),
            Tuple.of(1, consumerPrunes(wholeSeconds)),
            Tuple.of(6, advances(wholeSeconds)),
            Tuple.of(1, finds()),
            Tuple.of(1, lists()));
    // Uniform sizes: the interesting histories (takeover, death, prune after DONE) need length.
    return action
        .list()
        .ofMinSize(1)
        .ofMaxSize(MAX_ACTIONS)
        .withSizeDistribution(RandomDistribution.uniform());
  }

  private static Arbitrary<Action> begins(boolean wholeSeconds) {
    return Combinators.combine(
            consumerIndexes(),
            idIndexes(),
            millis(1, 10, wholeSeconds),
            Arbitraries.integers().between(1, 4),
            Arbitraries.of("h1", "h2").injectNull(0.5))
        .as(Begin::new);
  }

  private static Arbitrary<Action> completes() {
    Arbitrary<byte[]> results =
        Arbitraries.bytes().array(byte[].class).ofMaxSize(3).injectNull(0.5);
    return Combinators.combine(claimRefs(), results).as(Complete::new);
  }

  private static Arbitrary<Action> fails(boolean wholeSeconds) {
    return Combinators.combine(claimRefs(), errors(), millis(0, 10, wholeSeconds)).as(Fail::new);
  }

  private static Arbitrary<Action> markDeads() {
    return Combinators.combine(claimRefs(), errors()).as(MarkDead::new);
  }

  private static Arbitrary<Action> extensions(boolean wholeSeconds) {
    return Combinators.combine(claimRefs(), millis(1, 10, wholeSeconds)).as(Extend::new);
  }

  private static Arbitrary<Action> prunes(boolean wholeSeconds) {
    return pruneAges(wholeSeconds).map(Prune::new);
  }

  private static Arbitrary<Action> consumerPrunes(boolean wholeSeconds) {
    return Combinators.combine(consumerIndexes(), pruneAges(wholeSeconds)).as(PruneConsumer::new);
  }

  private static Arbitrary<Action> advances(boolean wholeSeconds) {
    return millis(0, 15, wholeSeconds).map(Advance::new);
  }

  private static Arbitrary<Action> finds() {
    return Combinators.combine(consumerIndexes(), idIndexes()).as(Find::new);
  }

  private static Arbitrary<Action> lists() {
    return Combinators.combine(
            Arbitraries.of(RecordState.class),
            Arbitraries.integers().between(-1, CONSUMERS.size() - 1),
            Arbitraries.integers().between(0, 4))
        .as(ListRecords::new);
  }

  private static Arbitrary<ClaimRef> claimRefs() {
    return Combinators.combine(
            Arbitraries.frequency(
                Tuple.of(6, ClaimRef.Kind.LATEST),
                Tuple.of(3, ClaimRef.Kind.STALE),
                Tuple.of(1, ClaimRef.Kind.FORGED),
                Tuple.of(1, ClaimRef.Kind.GHOST)),
            consumerIndexes(),
            idIndexes(),
            Arbitraries.integers().between(1, 3))
        .as(ClaimRef::new);
  }

  // Skewed towards the first keys: calls then often meet a record with a history behind it, while
  // the rarer keys still give fresh records and keys that never existed.
  private static Arbitrary<Integer> consumerIndexes() {
    return Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(1, 1));
  }

  private static Arbitrary<Integer> idIndexes() {
    return Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(2, 1), Tuple.of(1, 2));
  }

  private static Arbitrary<String> errors() {
    return Arbitraries.of("timeout", "refused", "boom");
  }

  /**
   * A duration in milliseconds. Mostly whole seconds: with second-sized leases and clock steps, the
   * clock often lands exactly on a lease end, which is where "now >= leaseUntil" is decided. Only
   * whole seconds when {@code wholeSeconds} (a store clock that moves on its own).
   */
  private static Arbitrary<Long> millis(int minSeconds, int maxSeconds, boolean wholeSeconds) {
    Arbitrary<Long> seconds =
        Arbitraries.integers().between(minSeconds, maxSeconds).map(s -> s * 1000L);
    if (wholeSeconds) {
      return seconds;
    }
    return Arbitraries.frequencyOf(
        Tuple.of(3, seconds),
        Tuple.of(1, Arbitraries.longs().between(minSeconds * 1000L, maxSeconds * 1000L)));
  }

  /**
   * How far before "now" a prune cuts off, in milliseconds: 0 to 20 seconds, the same grid as
   * {@link #millis}. With {@code wholeSeconds} the cut-off lies half a second after the whole
   * second instead, so a record updated a whole number of seconds before "now" is clearly on one
   * side of it: from now-20.5s to now+0.5s.
   */
  private static Arbitrary<Long> pruneAges(boolean wholeSeconds) {
    return millis(0, 20, wholeSeconds).map(ms -> wholeSeconds ? ms - OFF_GRID_MILLIS : ms);
  }

  // ---------------------------------------------------------------------------------------------
  // Running one try.

  /** One try: the store, the model, the claims handed out so far and a trace for failures. */
  private static final class Run {
    private final StoreFixture fixture;
    private final InboxStore store;
    private final InboxModel model;
    private final Map<String, List<Claim>> issued = new HashMap<>();
    private final List<String> trace = new ArrayList<>();

    /** Whether the store's clock moves in real time; the model's then follows it. */
    private final boolean clockMoves;

    /** How far two times may be apart; zero with a clock that stands still. */
    private final Duration tolerance;

    /** The model's time at the start; with a moving clock also the store's. */
    private final Instant start;

    /** All time moved through {@link Advance} so far. */
    private Duration advanced = Duration.ZERO;

    Run(StoreFixture fixture, boolean clockMoves) {
      this.fixture = fixture;
      this.store = fixture.store();
      this.clockMoves = clockMoves;
      this.tolerance = clockMoves ? MOVING_CLOCK_TOLERANCE : Duration.ZERO;
      this.start = store.currentTime();
      this.model = new InboxModel(start);
    }

    void step(Action action) {
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
        Observation expected = observe(modelAnswer, model.currentTime(), call);
        Observation actual = observe(storeAnswer, storeNow, call);
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
        // Shows in the report how often each decision and refusal was reached.
        Statistics.label(call.getClass().getSimpleName()).collect(category(actual.outcome()));
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
     * The store's "now", read right after the store answered, to view its answer from; with a
     * moving store clock the model's clock catches up with it, so that the model's answer is viewed
     * from the same moment (the model's decision was already made with its earlier "now").
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
     * With a moving store clock, waits while the model sees {@code call} as a close call (see
     * {@link #isCloseCall}), so that the real time passing during the call cannot tip the store to
     * the other side. Returns a note for the trace, empty if it did not wait.
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
     * Whether the model's "now" is within {@link #CLOSE_CALL} of a line {@code call} decides on:
     * the lease end of the key a begin meets, or the updatedAt of a DONE record a prune may delete.
     * For a lease end this can only matter once the try has run for about a second: with
     * whole-second durations, the model's distance to a lease end is a whole number of seconds plus
     * the real time since the lease was written, and at zero whole seconds both sides are past it
     * (real time only moves forward, on both).
     */
    private boolean isCloseCall(Call call) {
      Instant now = model.currentTime();
      if (call instanceof Begin b) {
        Duration sinceStart = Duration.between(start, now).minus(advanced);
        InboxRecord r =
            model.find(CONSUMERS.get(b.consumer()), MESSAGE_IDS.get(b.id())).orElse(null);
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
          Observation actual = records(got, storeNowAfterAnswer());
          Observation expected =
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
          Observation actual = records(byKey(got), storeNow);
          Observation expected =
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
      Observation expectedAll = records(all, modelNow);
      Observation actual = records(got, storeNow);
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
        Observation one = records(List.of(m), modelNow);
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

    private AssertionError failure(String what, Observation expected, Observation actual) {
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

  // ---------------------------------------------------------------------------------------------
  // What a call returned, in a form that can be compared across store and model.

  /**
   * The answer to one call, times made relative to the answering side's clock.
   *
   * @param outcome the decision, count, claim or exception type; compared exactly
   * @param timeName what {@code time} is, for the trace, or null
   * @param time the one time the answer carried besides records (a begin's store time, an extended
   *     claim's lease end), or null; compared like the times of records
   * @param records the records the answer carried; compared field by field
   * @param claim a claim the answer handed out, kept for later calls; not compared
   * @param note extra detail for the trace (an exception message); not compared
   */
  record Observation(
      String outcome,
      String timeName,
      Duration time,
      List<View> records,
      Claim claim,
      String note) {

    static Observation of(String outcome, List<View> records, Claim claim, String note) {
      return new Observation(outcome, null, null, records, claim, note);
    }

    /** Equal, except that times may be up to {@code tolerance} apart. */
    boolean agreesWith(Observation actual, Duration tolerance) {
      if (!outcome.equals(actual.outcome)
          || !closeEnough(time, actual.time, tolerance)
          || records.size() != actual.records.size()) {
        return false;
      }
      for (int i = 0; i < records.size(); i++) {
        if (!records.get(i).agreesWith(actual.records.get(i), tolerance)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(outcome);
      if (time != null) {
        s.append(' ').append(timeName).append(offset(time));
      }
      for (View v : records) {
        s.append(records.size() == 1 ? " " : "\n         ").append(v);
      }
      if (note != null) {
        s.append(" (").append(note).append(')');
      }
      return s.toString();
    }
  }

  /** One record with its times as offsets from "now", truncated to microseconds. */
  record View(
      String key,
      RecordState state,
      int attempts,
      Duration leaseUntil,
      Duration createdAt,
      Duration updatedAt,
      String lastError,
      String payloadHash,
      String result) {

    static View of(InboxRecord r, Instant now) {
      return new View(
          keyOf(r),
          r.state(),
          r.attempts(),
          relative(r.leaseUntil(), now),
          relative(r.createdAt(), now),
          relative(r.updatedAt(), now),
          r.lastError(),
          r.payloadHash(),
          hex(r.result()));
    }

    /**
     * Equal, except that times may be up to {@code tolerance} apart and the model's {@link
     * InboxModel#ANY_ERROR} accepts any non-null error.
     */
    boolean agreesWith(View actual, Duration tolerance) {
      boolean errorAgrees =
          InboxModel.ANY_ERROR.equals(lastError)
              ? actual.lastError != null
              : Objects.equals(lastError, actual.lastError);
      return errorAgrees
          && key.equals(actual.key)
          && state == actual.state
          && attempts == actual.attempts
          && closeEnough(leaseUntil, actual.leaseUntil, tolerance)
          && closeEnough(createdAt, actual.createdAt, tolerance)
          && closeEnough(updatedAt, actual.updatedAt, tolerance)
          && Objects.equals(payloadHash, actual.payloadHash)
          && Objects.equals(result, actual.result);
    }

    @Override
    public String toString() {
      return "["
          + key
          + " "
          + state
          + " attempts="
          + attempts
          + (leaseUntil == null ? "" : " leaseUntil=" + offset(leaseUntil))
          + " created="
          + offset(createdAt)
          + " updated="
          + offset(updatedAt)
          + (lastError == null ? "" : " error='" + lastError + "'")
          + (payloadHash == null ? "" : " hash=" + payloadHash)
          + (result == null ? "" : " result=" + result)
          + "]";
    }
  }

  /** Both null, or both set and at most {@code tolerance} apart (equal for a zero tolerance). */
  private static boolean closeEnough(Duration expected, Duration actual, Duration tolerance) {
    if (expected == null || actual == null) {
      return expected == actual;
    }
    return expected.minus(actual).abs().compareTo(tolerance) <= 0;
  }

  /** What one side answered to a call: the value it returned, or the exception it threw. */
  private record Answer(Object value, RuntimeException thrown) {

    /** Sends {@code call} to {@code target}. */
    static Answer of(InboxStore target, Call call, Claim claim) {
      try {
        return new Answer(call.applyTo(target, claim), null);
      } catch (RuntimeException e) {
        return new Answer(null, e);
      }
    }
  }

  /** Describes {@code answer}, with times relative to {@code now} of the side that answered. */
  private static Observation observe(Answer answer, Instant now, Call call) {
    if (answer.thrown() != null) {
      // Only the type is part of the contract; the message is for the reader.
      RuntimeException e = answer.thrown();
      return Observation.of(
          "threw " + e.getClass().getSimpleName(), List.of(), null, e.getMessage());
    }
    Object value = answer.value();
    if (value instanceof BeginResult r) {
      return new Observation(
          r.kind().name(),
          "at ",
          relative(r.storeTime(), now),
          List.of(View.of(r.record(), now)),
          r.claimed() ? r.claim() : null,
          null);
    }
    if (value instanceof InboxRecord r) {
      return Observation.of("ok", List.of(View.of(r, now)), null, null);
    }
    if (value instanceof Claim c) {
      return new Observation(
          "extended to " + describe(c),
          "leaseUntil=",
          relative(c.leaseUntil(), now),
          List.of(),
          c,
          null);
    }
    if (value instanceof Long n) {
      return Observation.of("pruned " + n, List.of(), null, null);
    }
    if (value instanceof Optional<?> found) {
      List<View> views = found.map(r -> View.of((InboxRecord) r, now)).stream().toList();
      return Observation.of(views.isEmpty() ? "absent" : "found", views, null, null);
    }
    throw new IllegalStateException("unexpected answer " + value + " to " + call);
  }

  private static Observation records(List<InboxRecord> found, Instant now) {
    List<View> views = found.stream().map(r -> View.of(r, now)).toList();
    return Observation.of(views.size() + " record(s)", views, null, null);
  }

  private static List<InboxRecord> byKey(List<InboxRecord> records) {
    List<InboxRecord> sorted = new ArrayList<>(records);
    sorted.sort(Comparator.comparing(InboxStoreModelProperties::keyOf));
    return sorted;
  }

  // ---------------------------------------------------------------------------------------------
  // Formatting.

  private static Instant micros(Instant t) {
    return t.truncatedTo(ChronoUnit.MICROS);
  }

  private static Duration relative(Instant t, Instant now) {
    return t == null ? null : Duration.between(micros(now), micros(t));
  }

  private static String offset(Duration d) {
    if (d.isZero()) {
      return "now";
    }
    return "now" + (d.isNegative() ? "-" : "+") + seconds(BigDecimal.valueOf(d.abs().toNanos(), 9));
  }

  private static String seconds(long millis) {
    return seconds(BigDecimal.valueOf(millis, 3));
  }

  private static String seconds(BigDecimal seconds) {
    return seconds.stripTrailingZeros().toPlainString() + "s";
  }

  private static String key(int consumer, int id) {
    return CONSUMERS.get(consumer) + "/" + MESSAGE_IDS.get(id);
  }

  private static String keyOf(InboxRecord r) {
    return r.consumer() + "/" + r.messageId();
  }

  private static String keyOf(Claim c) {
    return c.consumer() + "/" + c.messageId();
  }

  private static String describe(Claim c) {
    return "claim(" + keyOf(c) + " #" + c.fencingToken() + ")";
  }

  private static String hex(byte[] bytes) {
    return bytes == null ? null : "[" + HexFormat.of().formatHex(bytes) + "]";
  }
}
