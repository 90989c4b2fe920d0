package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The model test catches real bugs: two deliberately broken stores (built on the memory store) fail
 * it within the default seeds, each failure shrinks to a few actions that still fail, and the
 * reported seed replays it through {@code -Dinbox.model.seed}. The unbroken memory store passes the
 * very same seeds, so the failures are the mutations' doing.
 */
class ModelMutationTest {

  /** The default run: seeds 1 to 200. */
  private static final int SEEDS = 200;

  /** A shrunk failure must be at most this long to count as short. */
  private static final int SHORT = 6;

  @Test
  void theUnbrokenMemoryStorePassesEverySeed() {
    ModelCheck check = check((store, clock) -> store);
    ModelCoverage coverage = new ModelCoverage();
    for (long seed = 1; seed <= SEEDS; seed++) {
      Optional<ModelFailure> failure = check.check(seed, coverage);
      assertThat(failure).as("seed %d", seed).isEmpty();
    }
    assertThat(coverage.missing()).isEmpty();
  }

  @Test
  void aPruneThatDeletesProcessingRecordsIsCaughtAndShrunk() {
    ModelFailure failure = firstFailure(check(PruningProcessingStore::new));
    System.out.println(failure.report("PruningProcessingStore"));

    assertThat(failure.shrunk()).hasSizeLessThanOrEqualTo(SHORT);
    // Without a prune the broken call never runs, so a correctly shrunk sequence keeps one.
    assertThat(failure.shrunk())
        .anyMatch(a -> a instanceof ModelAction.Prune || a instanceof ModelAction.PruneConsumer);
    assertThat(failure.shrunk()).anyMatch(a -> a instanceof ModelAction.Begin);
    assertStillFails(check(PruningProcessingStore::new), failure);
  }

  @Test
  void aCompleteThatAcceptsAStaleFencingTokenIsCaughtAndShrunk() {
    ModelFailure failure = firstFailure(check((store, clock) -> new StaleTokenStore(store)));
    System.out.println(failure.report("StaleTokenStore"));

    assertThat(failure.shrunk()).hasSizeLessThanOrEqualTo(SHORT);
    assertThat(failure.shrunk())
        .anyMatch(
            a ->
                a instanceof ModelAction.Complete c
                    && c.claimRef().kind() == ModelAction.ClaimRef.Kind.STALE);
    assertStillFails(check((store, clock) -> new StaleTokenStore(store)), failure);
  }

  @Test
  void theReportNamesTheSeedAndReplayingItReproducesTheFailure() {
    ModelFailure failure = firstFailure(check((store, clock) -> new StaleTokenStore(store)));
    String report = failure.report("StaleTokenModelTest");
    assertThat(report)
        .contains("seed " + failure.seed())
        .contains("-Dinbox.model.seed=" + failure.seed())
        .contains("Shrunk from " + failure.originalLength() + " to " + failure.shrunk().size());

    String before = System.getProperty(InboxStoreModelTest.SEED_PROPERTY);
    System.setProperty(InboxStoreModelTest.SEED_PROPERTY, Long.toString(failure.seed()));
    try {
      InboxStoreModelTest staleTokenTest =
          new InboxStoreModelTest() {
            @Override
            protected StoreFixture newFixture() {
              return fixture((store, clock) -> new StaleTokenStore(store));
            }
          };
      // The replay runs only the reported seed, and reports the same shrunk sequence.
      assertThatThrownBy(staleTokenTest::storeBehavesLikeTheModel)
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("seed " + failure.seed() + ".")
          .hasMessageContaining(
              "Shrunk from " + failure.originalLength() + " to " + failure.shrunk().size());
    } finally {
      if (before == null) {
        System.clearProperty(InboxStoreModelTest.SEED_PROPERTY);
      } else {
        System.setProperty(InboxStoreModelTest.SEED_PROPERTY, before);
      }
    }
  }

  @Test
  void theSameSeedAlwaysGivesTheSameSequence() {
    ModelCheck check = check((store, clock) -> store);
    for (long seed = 1; seed <= 20; seed++) {
      assertThat(check.sequence(seed).toString()).isEqualTo(check.sequence(seed).toString());
    }
    assertThat(check.sequence(1).toString()).isNotEqualTo(check.sequence(2).toString());
  }

  private static ModelFailure firstFailure(ModelCheck check) {
    for (long seed = 1; seed <= SEEDS; seed++) {
      Optional<ModelFailure> failure = check.check(seed, new ModelCoverage());
      if (failure.isPresent()) {
        return failure.get();
      }
    }
    throw new AssertionError("no seed from 1 to " + SEEDS + " caught the broken store");
  }

  private static void assertStillFails(ModelCheck check, ModelFailure failure) {
    assertThat(check.run(failure.shrunk(), new ModelCoverage()))
        .as("the shrunk sequence fails on a fresh broken store")
        .isNotNull();
  }

  private static ModelCheck check(BiFunction<MemoryInboxStore, MutableClock, InboxStore> broken) {
    return new ModelCheck(() -> fixture(broken), false, true);
  }

  /** A fresh memory store on its own clock, seen through {@code broken}. */
  private static StoreFixture fixture(
      BiFunction<MemoryInboxStore, MutableClock, InboxStore> broken) {
    MutableClock clock = new MutableClock();
    InboxStore store = broken.apply(new MemoryInboxStore(clock), clock);
    return new StoreFixture() {
      @Override
      public InboxStore store() {
        return store;
      }

      @Override
      public void advanceTime(Duration duration) {
        clock.advance(duration);
      }
    };
  }
}
