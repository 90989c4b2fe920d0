package dev.archlab.inbox.testkit;

import dev.archlab.inbox.store.BeginResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How often each call reached each outcome over a model test run. It guards the generator: a change
 * that stopped reaching a decision or a refusal would leave the model test passing vacuously, so
 * {@link #missing()} names every required outcome that was never reached.
 */
final class ModelCoverage {

  private final Map<String, Map<String, Integer>> counts = new TreeMap<>();

  /** Counts one {@code outcome} of a call named {@code call} (its action's simple class name). */
  void record(String call, String outcome) {
    counts.computeIfAbsent(call, c -> new TreeMap<>()).merge(outcome, 1, Integer::sum);
  }

  /**
   * The required outcomes never reached: every {@code begin} decision, a payload mismatch, and a
   * {@code complete} that succeeded, lost its lease and used a claim never issued.
   */
  List<String> missing() {
    List<String> required = new ArrayList<>();
    for (BeginResult.Kind kind : BeginResult.Kind.values()) {
      required.add("Begin " + kind.name());
    }
    required.add("Begin threw PayloadMismatchException");
    required.add("Complete ok");
    required.add("Complete threw LeaseLostException");
    required.add("Complete threw UnknownClaimException");
    List<String> missing = new ArrayList<>();
    for (String r : required) {
      int space = r.indexOf(' ');
      Map<String, Integer> ofCall = counts.getOrDefault(r.substring(0, space), Map.of());
      if (ofCall.getOrDefault(r.substring(space + 1), 0) == 0) {
        missing.add(r);
      }
    }
    return missing;
  }

  /** Every call with its outcomes and counts, one call per line. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    counts.forEach((call, outcomes) -> s.append("\n  ").append(call).append(": ").append(outcomes));
    return s.toString();
  }
}
