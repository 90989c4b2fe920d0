package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The model test's mode for a store clock that moves on its own, on a memory store whose clock
 * stalls up to 900 ms on every read ({@link StallingClock}), seen through {@link ShiftedStore} the
 * way a database fixture is seen. A correct store passes every default seed however long its calls
 * take, because each answer is checked against the model at the instants the store could have
 * decided at; a broken store is still caught and shrunk.
 */
class MovingClockModelTest {

  private static final int SEEDS = 200;

  @Test
  void aCorrectStoreWhoseCallsStallPassesEverySeed() {
    ModelCheck check = check(store -> store);
    ModelCoverage coverage = new ModelCoverage();
    for (long seed = 1; seed <= SEEDS; seed++) {
      Optional<ModelFailure> failure = check.check(seed, coverage);
      assertThat(failure).as("seed %d", seed).isEmpty();
    }
    assertThat(coverage.missing()).as("outcomes reached:%s", coverage).isEmpty();
  }

  @Test
  void aCompleteThatAcceptsAStaleFencingTokenIsStillCaughtAndShrunk() {
    ModelCheck check = check(StaleTokenStore::new);
    ModelFailure failure = null;
    for (long seed = 1; seed <= SEEDS && failure == null; seed++) {
      failure = check.check(seed, new ModelCoverage()).orElse(null);
    }
    assertThat(failure).as("a seed from 1 to %d caught the broken store", SEEDS).isNotNull();
    System.out.println(failure.report("StaleTokenStore, moving clock"));
    assertThat(failure.shrunk()).hasSizeLessThanOrEqualTo(6);
    assertThat(failure.shrunk())
        .anyMatch(
            a ->
                a instanceof ModelAction.Complete c
                    && c.claimRef().kind() == ModelAction.ClaimRef.Kind.STALE);
    assertThat(check.run(failure.shrunk(), new ModelCoverage())).isNotNull();
  }

  private static ModelCheck check(UnaryOperator<InboxStore> broken) {
    return new ModelCheck(() -> fixture(broken), true, true);
  }

  private static StoreFixture fixture(UnaryOperator<InboxStore> broken) {
    StallingClock clock = new StallingClock();
    ShiftedStore shifted = new ShiftedStore(new MemoryInboxStore(clock));
    InboxStore store = broken.apply(shifted);
    return new StoreFixture() {
      @Override
      public InboxStore store() {
        return store;
      }

      @Override
      public void advanceTime(Duration duration) {
        clock.advance(duration);
        shifted.shiftBy(duration);
      }
    };
  }
}
