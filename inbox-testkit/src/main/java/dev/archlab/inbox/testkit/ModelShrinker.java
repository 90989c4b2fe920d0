package dev.archlab.inbox.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Makes a failing action sequence short by dropping actions while the failure persists: first
 * halves, then quarters and so on down to single actions, repeated until no single action can be
 * dropped or the replay budget is spent. Each candidate is replayed from scratch by the predicate
 * (on a fresh store), so the result is a sequence that really fails, not a guess.
 */
final class ModelShrinker {

  private final Predicate<List<ModelAction>> fails;
  private final int maxReplays;
  private int replays;

  /**
   * @param fails replays a sequence on a fresh store; true if it still fails
   * @param maxReplays how many replays shrinking may cost at most
   */
  ModelShrinker(Predicate<List<ModelAction>> fails, int maxReplays) {
    if (maxReplays < 0) {
      throw new IllegalArgumentException("maxReplays must be >= 0, got " + maxReplays);
    }
    this.fails = fails;
    this.maxReplays = maxReplays;
  }

  /**
   * A sequence that still fails and from which no single action can be dropped (budget allowing).
   */
  List<ModelAction> shrink(List<ModelAction> failing) {
    List<ModelAction> current = List.copyOf(failing);
    boolean dropped = true;
    while (dropped && replays < maxReplays) {
      dropped = false;
      for (int chunk = Integer.highestOneBit(Math.max(1, current.size() / 2));
          chunk >= 1;
          chunk /= 2) {
        int from = 0;
        while (from < current.size() && replays < maxReplays) {
          List<ModelAction> candidate = without(current, from, chunk);
          if (!candidate.isEmpty() && replay(candidate)) {
            current = candidate;
            dropped = true;
          } else {
            from += chunk;
          }
        }
      }
    }
    return current;
  }

  /** How many replays the last {@link #shrink} calls cost in total. */
  int replays() {
    return replays;
  }

  private boolean replay(List<ModelAction> candidate) {
    replays++;
    return fails.test(candidate);
  }

  private static List<ModelAction> without(List<ModelAction> actions, int from, int count) {
    List<ModelAction> rest = new ArrayList<>(actions.subList(0, from));
    rest.addAll(actions.subList(Math.min(actions.size(), from + count), actions.size()));
    return List.copyOf(rest);
  }
}
