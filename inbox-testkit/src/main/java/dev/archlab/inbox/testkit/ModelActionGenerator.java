package dev.archlab.inbox.testkit;

import static dev.archlab.inbox.testkit.ModelFormat.CONSUMERS;

import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.testkit.ModelAction.Advance;
import dev.archlab.inbox.testkit.ModelAction.Begin;
import dev.archlab.inbox.testkit.ModelAction.ClaimRef;
import dev.archlab.inbox.testkit.ModelAction.Complete;
import dev.archlab.inbox.testkit.ModelAction.Extend;
import dev.archlab.inbox.testkit.ModelAction.Fail;
import dev.archlab.inbox.testkit.ModelAction.Find;
import dev.archlab.inbox.testkit.ModelAction.ListRecords;
import dev.archlab.inbox.testkit.ModelAction.MarkDead;
import dev.archlab.inbox.testkit.ModelAction.Prune;
import dev.archlab.inbox.testkit.ModelAction.PruneConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Turns a seed into a sequence of 1 to {@value #MAX_ACTIONS} actions. The same seed and the same
 * clock mode always give the same sequence (a {@link SplittableRandom} seeded with it, nothing
 * else), which is what makes a failing seed replayable.
 */
final class ModelActionGenerator {

  static final int MAX_ACTIONS = 60;

  /**
   * Prune cut-offs with a moving store clock lie this far after a whole second back from "now", so
   * that most prunes meet records clearly on one side of the cut-off and only some of them (records
   * written half a second apart) on the line; the run checks either kind exactly.
   */
  static final long OFF_GRID_MILLIS = 500;

  private static final String[] ERRORS = {"timeout", "refused", "boom"};

  private final boolean wholeSeconds;

  /**
   * @param wholeSeconds whether every duration is whole seconds (a store clock that moves on its
   *     own); otherwise mostly whole seconds with some arbitrary milliseconds
   */
  ModelActionGenerator(boolean wholeSeconds) {
    this.wholeSeconds = wholeSeconds;
  }

  /**
   * The sequence for {@code seed}; uniform in length, because interesting histories need length.
   */
  List<ModelAction> sequence(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int size = 1 + random.nextInt(MAX_ACTIONS);
    List<ModelAction> actions = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      actions.add(action(random));
    }
    return List.copyOf(actions);
  }

  /** One action; begins and clock moves are the most frequent, as they drive every transition. */
  private ModelAction action(SplittableRandom r) {
    int pick = r.nextInt(28);
    if (pick < 8) {
      return new Begin(
          consumer(r), id(r), millis(r, 1, 10), 1 + r.nextInt(4), r.nextBoolean() ? null : hash(r));
    }
    if (pick < 12) {
      return new Complete(claimRef(r), r.nextBoolean() ? null : result(r));
    }
    if (pick < 15) {
      return new Fail(claimRef(r), error(r), millis(r, 0, 10));
    }
    if (pick < 16) {
      return new MarkDead(claimRef(r), error(r));
    }
    if (pick < 18) {
      return new Extend(claimRef(r), millis(r, 1, 10));
    }
    if (pick < 19) {
      return new Prune(pruneAge(r));
    }
    if (pick < 20) {
      return new PruneConsumer(consumer(r), pruneAge(r));
    }
    if (pick < 26) {
      return new Advance(millis(r, 0, 15));
    }
    if (pick < 27) {
      return new Find(consumer(r), id(r));
    }
    RecordState[] states = RecordState.values();
    return new ListRecords(
        states[r.nextInt(states.length)], r.nextInt(CONSUMERS.size() + 1) - 1, r.nextInt(5));
  }

  private static ClaimRef claimRef(SplittableRandom r) {
    int pick = r.nextInt(11);
    ClaimRef.Kind kind =
        pick < 6
            ? ClaimRef.Kind.LATEST
            : pick < 9
                ? ClaimRef.Kind.STALE
                : pick < 10 ? ClaimRef.Kind.FORGED : ClaimRef.Kind.GHOST;
    return new ClaimRef(kind, consumer(r), id(r), 1 + r.nextInt(3));
  }

  // Skewed towards the first keys: calls then often meet a record with a history behind it, while
  // the rarer keys still give fresh records and keys that never existed.
  private static int consumer(SplittableRandom r) {
    return r.nextInt(4) < 3 ? 0 : 1;
  }

  private static int id(SplittableRandom r) {
    int pick = r.nextInt(6);
    return pick < 3 ? 0 : pick < 5 ? 1 : 2;
  }

  private static String hash(SplittableRandom r) {
    return r.nextBoolean() ? "h1" : "h2";
  }

  private static byte[] result(SplittableRandom r) {
    byte[] bytes = new byte[r.nextInt(4)];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) r.nextInt(256);
    }
    return bytes;
  }

  private static String error(SplittableRandom r) {
    return ERRORS[r.nextInt(ERRORS.length)];
  }

  /**
   * A duration in milliseconds. Mostly whole seconds: with second-sized leases and clock steps, the
   * clock often lands exactly on a lease end, which is where "now >= leaseUntil" is decided. Only
   * whole seconds with {@link #wholeSeconds}.
   */
  private long millis(SplittableRandom r, int minSeconds, int maxSeconds) {
    if (wholeSeconds || r.nextInt(4) < 3) {
      return 1000L * (minSeconds + r.nextInt(maxSeconds - minSeconds + 1));
    }
    return r.nextLong(minSeconds * 1000L, maxSeconds * 1000L + 1);
  }

  /**
   * How far before "now" a prune cuts off, in milliseconds: 0 to 20 seconds, the same grid as
   * {@link #millis}. With {@link #wholeSeconds} the cut-off lies {@value #OFF_GRID_MILLIS} ms after
   * the whole second instead: from now-19.5s to now+0.5s.
   */
  private long pruneAge(SplittableRandom r) {
    long ms = millis(r, 0, 20);
    return wholeSeconds ? ms - OFF_GRID_MILLIS : ms;
  }
}
