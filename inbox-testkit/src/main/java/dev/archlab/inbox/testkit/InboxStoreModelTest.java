package dev.archlab.inbox.testkit;

import dev.archlab.inbox.store.InboxStore;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A model test every {@link InboxStore} must pass: seeded random sequences of begin, complete,
 * fail, mark-dead, extend, prune (all consumers or one), find, list and clock moves are sent both
 * to a fresh store and to {@link InboxModel}, a small reference model of docs/DESIGN.md §3–4, and
 * after every action the two must agree on what was returned or thrown and on every record they
 * hold. Plain JUnit 5: a store module that extends it needs no other test dependency.
 *
 * <p>Guarantees, for a store that passes:
 *
 * <ul>
 *   <li>{@code begin} takes the decision of docs/DESIGN.md §3 (CLAIMED, DUPLICATE, DEAD, IN_FLIGHT,
 *       TAKEN_OVER, DIED, payload mismatch) in every reachable state, including exactly at a lease
 *       end;
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
 * <p><b>Seeds.</b> Seed {@code n} always gives the same sequence of 1 to 60 actions. A run checks
 * {@link #seeds()} consecutive seeds (200 by default) starting at 1, so every build checks the same
 * sequences; {@code -Dinbox.model.seeds=N} checks N seeds instead and {@code
 * -Dinbox.model.firstSeed=S} starts elsewhere, to explore new sequences. The run also checks that
 * the seeds reached every {@code begin} decision, a payload mismatch, and a {@code complete} that
 * succeeded, lost its lease and used a claim never issued (so a generator change cannot leave the
 * test passing vacuously); with fewer than about 50 seeds that check may fail, and says why.
 *
 * <p><b>Failures.</b> The first failing seed is shrunk: actions are dropped (halves, then smaller
 * chunks, down to single actions), each candidate replayed on a fresh store, while the failure
 * persists. The report names the seed, the shrunk sequence, what each side answered at each step,
 * and the one property that replays it: {@code -Dinbox.model.seed=S} runs only seed S (and shrinks
 * it again, to the same result for a store with a clock that stands still).
 *
 * <p><b>Clocks.</b> Times are compared relative to each side's "now" and truncated to microseconds,
 * so a database that keeps microseconds passes, and a fixture may implement {@link
 * StoreFixture#advanceTime} either by moving the clock or by shifting stored timestamps back:
 *
 * <ul>
 *   <li><b>A clock that stands still between actions</b> (a {@link MutableClock}; the default):
 *       generated durations are whole milliseconds, mostly whole seconds, so the clock often lands
 *       exactly on a lease end or a prune cut-off, and every time must agree exactly.
 *   <li><b>A clock that moves in real time</b> (a database's {@code now()}; override {@link
 *       #storeClockMovesOnItsOwn()} to return {@code true}): the run reads the store's clock right
 *       before (t0) and right after (t1) every call. The store decided at some instant in [t0, t1],
 *       so its answer must equal, times included, what the model answers at one such instant: t0,
 *       t1, the instant the answer names (a begin's store time, the updatedAt a write returned) or
 *       an instant in between where a lease end or prune cut-off flips the decision. The model
 *       continues from that instant, so every timestamp the store writes must lie in [t0, t1] and
 *       all later comparisons stay exact. However slowly a call runs (a GC pause, a loaded
 *       machine), a correct store passes; a slow call only widens the instants it may have decided
 *       at. Generated durations are whole seconds and prune cut-offs lie half a second off that
 *       grid. What this mode cannot aim at is the exact instant (a record updated exactly at the
 *       prune cut-off, a lease end passed by a microsecond); the default mode covers that.
 * </ul>
 *
 * <p>To run it for a store, extend this class and implement {@link #newFixture()}.
 */
public abstract class InboxStoreModelTest {

  /** Runs only this seed: {@code -Dinbox.model.seed=S}, as printed in a failure report. */
  public static final String SEED_PROPERTY = "inbox.model.seed";

  /** How many seeds to run, overriding {@link #seeds()}: {@code -Dinbox.model.seeds=N}. */
  public static final String SEEDS_PROPERTY = "inbox.model.seeds";

  /** The first seed of a run (1 by default): {@code -Dinbox.model.firstSeed=S}. */
  public static final String FIRST_SEED_PROPERTY = "inbox.model.firstSeed";

  /**
   * A fresh, empty store for one sequence. Closed when the sequence ends.
   *
   * @return a new fixture whose store holds no records
   */
  protected abstract StoreFixture newFixture();

  /**
   * Whether the store's clock moves on its own between actions, like a database's {@code now()},
   * instead of standing still until {@link StoreFixture#advanceTime} moves it. {@code false} by
   * default; see the class description for how each kind is tested.
   *
   * @return true for a store whose clock moves on its own
   */
  protected boolean storeClockMovesOnItsOwn() {
    return false;
  }

  /**
   * Whether every record is compared after every action ({@code true}, the default) or only after
   * the last one. A slow store may turn this off; the answers of the actions are still compared at
   * every step.
   *
   * @return true to compare every record after every action
   */
  protected boolean compareAllRecordsAfterEveryAction() {
    return true;
  }

  /**
   * How many seeds a run checks unless {@code -Dinbox.model.seeds} says otherwise; 200 by default.
   * A slow store may return fewer; keep at least 50 or so, for the coverage check.
   *
   * @return the seed count
   */
  protected int seeds() {
    return 200;
  }

  /** The store answers every action like the model and ends up holding the same records. */
  @Test
  public void storeBehavesLikeTheModel() {
    ModelCheck check =
        new ModelCheck(
            this::newFixture, storeClockMovesOnItsOwn(), compareAllRecordsAfterEveryAction());
    ModelCoverage coverage = new ModelCoverage();
    String name = getClass().getSimpleName();
    Long replay = longProperty(SEED_PROPERTY, null);
    if (replay != null) {
      failOn(check.check(replay, coverage), name);
      // One seed cannot be expected to reach every outcome; say so rather than pass it silently.
      System.out.println(
          name + ": seed " + replay + " passed (coverage not checked for a single seed)");
      return;
    }
    long first = longProperty(FIRST_SEED_PROPERTY, 1L);
    long count = longProperty(SEEDS_PROPERTY, (long) seeds());
    if (count < 1) {
      throw new IllegalArgumentException(
          SEEDS_PROPERTY + " (or seeds()) must be at least 1, got " + count);
    }
    for (long seed = first; seed < first + count; seed++) {
      failOn(check.check(seed, coverage), name);
    }
    List<String> missing = coverage.missing();
    if (!missing.isEmpty()) {
      throw new AssertionError(
          name
              + ": seeds "
              + first
              + " to "
              + (first + count - 1)
              + " never reached "
              + missing
              + "; run more seeds (-D"
              + SEEDS_PROPERTY
              + ") or fix the generator. Outcomes reached:"
              + coverage);
    }
    System.out.println(
        name + ": seeds " + first + " to " + (first + count - 1) + " passed." + coverage);
  }

  private static void failOn(Optional<ModelFailure> failure, String name) {
    if (failure.isPresent()) {
      throw new AssertionError(failure.get().report(name));
    }
  }

  /** A whole-number system property, {@code otherwise} if unset; a clear error if malformed. */
  private static Long longProperty(String property, Long otherwise) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      return otherwise;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          property + " must be a whole number, got '" + value + "'", e);
    }
  }
}
