package dev.archlab.inbox.testkit;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Checks a store against the model for one seed: generates the seed's action sequence, runs it on a
 * fresh store and, if the store disagrees with the model anywhere, shrinks the sequence to a short
 * one that still fails. Knows nothing of JUnit, so a test can also use it to show that a broken
 * store is caught.
 */
final class ModelCheck {

  /** Replays the shrinker may spend on one failure; enough for 60 actions down to a handful. */
  static final int MAX_SHRINK_REPLAYS = 1000;

  private final Supplier<StoreFixture> fixtures;
  private final boolean clockMoves;
  private final boolean compareAfterEveryAction;
  private final ModelActionGenerator generator;

  /**
   * @param fixtures a fresh, empty store per call; each is closed after its run
   * @param clockMoves whether the store's clock moves in real time (see {@link ModelRun})
   * @param compareAfterEveryAction whether all records are compared after every action, or only
   *     after the last one
   */
  ModelCheck(Supplier<StoreFixture> fixtures, boolean clockMoves, boolean compareAfterEveryAction) {
    this.fixtures = Objects.requireNonNull(fixtures, "fixtures");
    this.clockMoves = clockMoves;
    this.compareAfterEveryAction = compareAfterEveryAction;
    this.generator = new ModelActionGenerator(clockMoves);
  }

  /** The action sequence {@code seed} stands for. */
  List<ModelAction> sequence(long seed) {
    return generator.sequence(seed);
  }

  /**
   * Runs {@code seed}'s sequence, counting outcomes into {@code coverage}; empty if the store
   * behaved like the model throughout.
   */
  Optional<ModelFailure> check(long seed, ModelCoverage coverage) {
    List<ModelAction> actions = sequence(seed);
    AssertionError failure = run(actions, coverage);
    if (failure == null) {
      return Optional.empty();
    }
    // Replays during shrinking count into a scratch tally: they are not new coverage.
    ModelCoverage scratch = new ModelCoverage();
    ModelShrinker shrinker =
        new ModelShrinker(candidate -> run(candidate, scratch) != null, MAX_SHRINK_REPLAYS);
    List<ModelAction> shrunk = shrinker.shrink(actions);
    AssertionError shrunkFailure = run(shrunk, scratch);
    // A failure that does not come back on replay (it should) is still reported, unshrunk.
    return Optional.of(
        shrunkFailure == null
            ? new ModelFailure(seed, actions.size(), actions, failure, shrinker.replays())
            : new ModelFailure(seed, actions.size(), shrunk, shrunkFailure, shrinker.replays()));
  }

  /** Runs {@code actions} on a fresh store; the first disagreement, or null if there was none. */
  AssertionError run(List<ModelAction> actions, ModelCoverage coverage) {
    try (StoreFixture fixture = fixtures.get()) {
      ModelRun run = new ModelRun(fixture, clockMoves, coverage);
      for (int i = 0; i < actions.size(); i++) {
        run.step(actions.get(i));
        if (compareAfterEveryAction || i == actions.size() - 1) {
          run.compareAllRecords();
        }
      }
      return null;
    } catch (AssertionError e) {
      return e;
    } catch (Exception e) {
      throw new IllegalStateException("the store fixture failed to close", e);
    }
  }
}
