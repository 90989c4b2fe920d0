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
 * that keeps microseconds passes and a fixture may implement {@link StoreFixture#advanceTime}
 * either by moving the clock or by shifting stored timestamps back. The store's clock must not move
 * on its own between actions (use a {@link MutableClock} or a pinned database time); all generated
 * durations are whole milliseconds.
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

  /** A fresh, empty store for one try. Closed when the try ends. */
  protected abstract StoreFixture newFixture();

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
      Run run = new Run(fixture);
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
      return "prune(before now-" + seconds(agoMillis) + ")";
    }
  }

  record PruneConsumer(int consumer, long agoMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.prune(CONSUMERS.get(consumer), target.currentTime().minusMillis(agoMillis));
    }

    @Override
    public String toString() {
      return "prune(" + CONSUMERS.get(consumer) + ", before now-" + seconds(agoMillis) + ")";
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
    Arbitrary<Action> action =
        Arbitraries.frequencyOf(
            Tuple.of(8, begins()),
            Tuple.of(4, completes()),
            Tuple.of(3, fails()),
            Tuple.of(1, markDeads()),
            Tuple.of(2, extensions()),
            Tuple.of(1, prunes()),
            Tuple.of(1, consumerPrunes()),
            Tuple.of(6, advances()),
            Tuple.of(1, finds()),
            Tuple.of(1, lists()));
    // Uniform sizes: the interesting histories (takeover, death, prune after DONE) need length.
    return action
        .list()
        .ofMinSize(1)
        .ofMaxSize(MAX_ACTIONS)
        .withSizeDistribution(RandomDistribution.uniform());
  }

  private static Arbitrary<Action> begins() {
    return Combinators.combine(
            consumerIndexes(),
            idIndexes(),
            millis(1, 10),
            Arbitraries.integers().between(1, 4),
            Arbitraries.of("h1", "h2").injectNull(0.5))
        .as(Begin::new);
  }

  private static Arbitrary<Action> completes() {
    Arbitrary<byte[]> results =
        Arbitraries.bytes().array(byte[].class).ofMaxSize(3).injectNull(0.5);
    return Combinators.combine(claimRefs(), results).as(Complete::new);
  }

  private static Arbitrary<Action> fails() {
    return Combinators.combine(claimRefs(), errors(), millis(0, 10)).as(Fail::new);
  }

  private static Arbitrary<Action> markDeads() {
    return Combinators.combine(claimRefs(), errors()).as(MarkDead::new);
  }

  private static Arbitrary<Action> extensions() {
    return Combinators.combine(claimRefs(), millis(1, 10)).as(Extend::new);
  }

  private static Arbitrary<Action> prunes() {
    return millis(0, 20).map(Prune::new);
  }

  private static Arbitrary<Action> consumerPrunes() {
    return Combinators.combine(consumerIndexes(), millis(0, 20)).as(PruneConsumer::new);
  }

  private static Arbitrary<Action> advances() {
    return millis(0, 15).map(Advance::new);
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
   * Whole milliseconds, mostly whole seconds: with second-sized leases and clock steps, the clock
   * often lands exactly on a lease end, which is where "now >= leaseUntil" is decided.
   */
  private static Arbitrary<Long> millis(int minSeconds, int maxSeconds) {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.integers().between(minSeconds, maxSeconds).map(s -> s * 1000L)),
        Tuple.of(1, Arbitraries.longs().between(minSeconds * 1000L, maxSeconds * 1000L)));
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

    Run(StoreFixture fixture) {
      this.fixture = fixture;
      this.store = fixture.store();
      this.model = new InboxModel(store.currentTime());
    }

    void step(Action action) {
      if (action instanceof Advance advance) {
        fixture.advanceTime(Duration.ofMillis(advance.millis()));
        model.advance(Duration.ofMillis(advance.millis()));
        trace.add(action.toString());
      } else if (action instanceof ListRecords list) {
        checkList(list);
      } else {
        Call call = (Call) action;
        Claim claim = call.claimRef() == null ? null : resolve(call.claimRef());
        Observation expected = observe(model, call, claim);
        Observation actual = observe(store, call, claim);
        trace.add(
            call + (claim == null ? "" : " using " + describe(claim)) + "\n       -> " + actual);
        if (!expected.agreesWith(actual)) {
          throw failure("the store's answer differs from the model's", expected, actual);
        }
        if (actual.claim() != null) {
          issued.computeIfAbsent(keyOf(actual.claim()), k -> new ArrayList<>()).add(actual.claim());
        }
        // Shows in the report how often each decision and refusal was reached.
        Statistics.label(call.getClass().getSimpleName()).collect(category(actual.outcome()));
      }
    }

    /** Every record in the key pool and every list, compared with the model. */
    void compareAllRecords() {
      for (String consumer : CONSUMERS) {
        for (String id : MESSAGE_IDS) {
          Observation expected = records(model, model.find(consumer, id).stream().toList());
          Observation actual = records(store, store.find(consumer, id).stream().toList());
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
          requireOldestFirst(what, got);
          // Order among equal createdAt is open, so compare as sets sorted by key.
          Observation expected = records(model, byKey(model.list(state, consumer, LIST_ALL)));
          Observation actual = records(store, byKey(got));
          if (!expected.agreesWith(actual)) {
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
      List<InboxRecord> all = model.list(list.state(), list.consumerName(), LIST_ALL);
      List<InboxRecord> got = store.list(list.state(), list.consumerName(), list.limit());
      trace.add(list + "\n       -> " + records(store, got));
      String what = list.toString();
      requireOldestFirst(what, got);
      Observation expectedAll = records(model, all);
      Observation actual = records(store, got);
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
        Observation one = records(model, List.of(m));
        if (!one.agreesWith(records(store, List.of(r)))) {
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

    private void requireOldestFirst(String what, List<InboxRecord> got) {
      for (int i = 1; i < got.size(); i++) {
        if (micros(got.get(i).createdAt()).isBefore(micros(got.get(i - 1).createdAt()))) {
          throw failure(what + " is not ordered by createdAt", null, records(store, got));
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
      message.append("\n  (times are relative to each side's now)\nactions so far:");
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
   * @param records the records the answer carried; compared field by field
   * @param claim a claim the answer handed out, kept for later calls; not compared
   * @param note extra detail for the trace (an exception message); not compared
   */
  record Observation(String outcome, List<View> records, Claim claim, String note) {

    boolean agreesWith(Observation actual) {
      if (!outcome.equals(actual.outcome) || records.size() != actual.records.size()) {
        return false;
      }
      for (int i = 0; i < records.size(); i++) {
        if (!records.get(i).agreesWith(actual.records.get(i))) {
          return false;
        }
      }
      return true;
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(outcome);
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

    /** Equal, except that the model's {@link InboxModel#ANY_ERROR} accepts any non-null error. */
    boolean agreesWith(View actual) {
      boolean errorAgrees =
          InboxModel.ANY_ERROR.equals(lastError)
              ? actual.lastError != null
              : Objects.equals(lastError, actual.lastError);
      return errorAgrees
          && key.equals(actual.key)
          && state == actual.state
          && attempts == actual.attempts
          && Objects.equals(leaseUntil, actual.leaseUntil)
          && createdAt.equals(actual.createdAt)
          && updatedAt.equals(actual.updatedAt)
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

  /** Sends {@code call} to {@code target} and describes the answer. */
  private static Observation observe(InboxStore target, Call call, Claim claim) {
    Object answer;
    try {
      answer = call.applyTo(target, claim);
    } catch (RuntimeException e) {
      // Only the type is part of the contract; the message is for the reader.
      return new Observation(
          "threw " + e.getClass().getSimpleName(), List.of(), null, e.getMessage());
    }
    Instant now = target.currentTime();
    if (answer instanceof BeginResult r) {
      return new Observation(
          r.kind()
              + (relative(r.storeTime(), now).isZero()
                  ? ""
                  : " at " + offset(relative(r.storeTime(), now))),
          List.of(View.of(r.record(), now)),
          r.claimed() ? r.claim() : null,
          null);
    }
    if (answer instanceof InboxRecord r) {
      return new Observation("ok", List.of(View.of(r, now)), null, null);
    }
    if (answer instanceof Claim c) {
      return new Observation(
          "extended to " + describe(c) + " leaseUntil=" + offset(relative(c.leaseUntil(), now)),
          List.of(),
          c,
          null);
    }
    if (answer instanceof Long n) {
      return new Observation("pruned " + n, List.of(), null, null);
    }
    if (answer instanceof Optional<?> found) {
      List<View> views = found.map(r -> View.of((InboxRecord) r, now)).stream().toList();
      return new Observation(views.isEmpty() ? "absent" : "found", views, null, null);
    }
    throw new IllegalStateException("unexpected answer " + answer + " to " + call);
  }

  private static Observation records(InboxStore target, List<InboxRecord> found) {
    Instant now = target.currentTime();
    List<View> views = found.stream().map(r -> View.of(r, now)).toList();
    return new Observation(views.size() + " record(s)", views, null, null);
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
