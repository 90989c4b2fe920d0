package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.memory.MemoryInboxStore;
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
  }
}
