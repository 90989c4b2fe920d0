package dev.archlab.inbox.examples;

import dev.archlab.inbox.memory.MemoryInboxStore;
import java.util.List;

/**
 * Runs {@link SeedStory} on the in-memory store and prints what happened per scenario, ending with
 * a verdict line. Exit code 0 when every scenario's facts held, 1 otherwise.
 */
public final class SeedStoryDemo {
  private SeedStoryDemo() {}

  public static void main(String[] args) throws Exception {
    List<SeedStory.Scenario> scenarios =
        new SeedStory(new MemoryInboxStore(), "demo-" + System.currentTimeMillis()).runAll();
    int passed = 0;
    for (SeedStory.Scenario s : scenarios) {
      System.out.printf(
          "%-4s %-48s handler calls=%d attempts=%d%n     outcomes: %s%n     %s%n",
          s.passed() ? "ok" : "FAIL",
          s.name(),
          s.handlerCalls(),
          s.attempts(),
          String.join(" -> ", s.outcomes()),
          s.note());
      if (s.passed()) {
        passed++;
      }
    }
    boolean all = passed == scenarios.size();
    System.out.printf(
        "%nverdict: %s (%d of %d scenarios held)%n",
        all ? "EXACTLY-ONCE EFFECT HELD" : "VIOLATION", passed, scenarios.size());
    if (!all) {
      System.exit(1);
    }
  }
}
