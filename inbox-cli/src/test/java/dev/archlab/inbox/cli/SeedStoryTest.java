package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SeedStoryTest {

  @Test
  @Timeout(60)
  void everyScenarioOfTheStoryHoldsOnTheMemoryStore() throws Exception {
    List<SeedStory.Scenario> scenarios = new SeedStory(new MemoryInboxStore(), "t").runAll();
    assertThat(scenarios).hasSize(7);
    assertThat(scenarios).allSatisfy(s -> assertThat(s.passed()).as(s.toString()).isTrue());
    assertThat(scenarios)
        .extracting(SeedStory.Scenario::attempts)
        .containsExactly(1, 1, 3, 2, 2, 3, 1);
  }

  /**
   * The attempts printed are the store's, not a constant: ids that already had a failed try before
   * the story ran are applied at attempt 2.
   */
  @Test
  @Timeout(60)
  void attemptsAreMeasuredNotAssumed() throws Exception {
    MemoryInboxStore store = new MemoryInboxStore();
    for (String id : List.of("p-repeat", "p-concurrent")) {
      store.fail(
          store
              .begin(new BeginRequest("demo-notifier", id, Duration.ofSeconds(5), 5, null))
              .claim(),
          "an earlier consumer failed",
          Duration.ZERO);
    }
    SeedStory story = new SeedStory(store, "p");
    SeedStory.Scenario repeat = story.repeatDelivery();
    assertThat(repeat.passed()).as(repeat.toString()).isTrue();
    assertThat(repeat.attempts()).as(repeat.toString()).isEqualTo(2);
    SeedStory.Scenario concurrent = story.concurrentDuplicates();
    assertThat(concurrent.passed()).as(concurrent.toString()).isTrue();
    assertThat(concurrent.attempts()).as(concurrent.toString()).isEqualTo(2);
    SeedStory.Scenario window = story.dedupWindowEdge();
    assertThat(window.passed()).as(window.toString()).isTrue();
    // Re-applied after the prune: a new record, at its first attempt, as the store says.
    assertThat(window.attempts())
        .isEqualTo(store.find("demo-notifier", "p-window").orElseThrow().attempts())
        .isEqualTo(1);
  }
}
