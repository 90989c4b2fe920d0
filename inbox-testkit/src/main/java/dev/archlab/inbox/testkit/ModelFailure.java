package dev.archlab.inbox.testkit;

import java.util.List;

/**
 * A seed whose action sequence made the store disagree with the model.
 *
 * @param seed the seed; replaying it gives the same original sequence
 * @param originalLength how many actions the seed's sequence had
 * @param shrunk the short sequence that still fails (the original one if it could not be shrunk)
 * @param cause what differed when {@code shrunk} ran, with its step-by-step trace
 * @param replays how many replays shrinking took
 */
record ModelFailure(
    long seed, int originalLength, List<ModelAction> shrunk, AssertionError cause, int replays) {

  ModelFailure {
    shrunk = List.copyOf(shrunk);
  }

  /** The report for a reader: seed, how to replay it, the shrunk sequence and what differed. */
  String report(String storeTest) {
    StringBuilder s = new StringBuilder();
    s.append(storeTest)
        .append(": the store disagreed with the model for seed ")
        .append(seed)
        .append(".\nReplay with -D")
        .append(InboxStoreModelTest.SEED_PROPERTY)
        .append('=')
        .append(seed)
        .append(" (for example: ./mvnw test -pl <module> -Dtest=")
        .append(storeTest)
        .append(" -D")
        .append(InboxStoreModelTest.SEED_PROPERTY)
        .append('=')
        .append(seed)
        .append(")\nShrunk from ")
        .append(originalLength)
        .append(" to ")
        .append(shrunk.size())
        .append(" action(s) in ")
        .append(replays)
        .append(" replay(s):");
    for (int i = 0; i < shrunk.size(); i++) {
      s.append(String.format("%n  %2d. %s", i + 1, shrunk.get(i)));
    }
    return s.append("\nWhat differed, running the shrunk sequence:\n")
        .append(cause.getMessage())
        .toString();
  }
}
