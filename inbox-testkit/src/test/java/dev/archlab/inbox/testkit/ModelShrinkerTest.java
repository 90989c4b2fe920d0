package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shrinker keeps exactly what a failure needs, within its replay budget. */
class ModelShrinkerTest {

  private static final ModelAction NEEDED_A = new ModelAction.Advance(7_001);
  private static final ModelAction NEEDED_B = new ModelAction.Advance(7_002);

  @Test
  void dropsEveryActionTheFailureDoesNotNeed() {
    List<ModelAction> failing = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      failing.add(new ModelAction.Advance(i));
      if (i == 13) {
        failing.add(NEEDED_A);
      }
      if (i == 41) {
        failing.add(NEEDED_B);
      }
    }
    ModelShrinker shrinker =
        new ModelShrinker(s -> s.contains(NEEDED_A) && s.contains(NEEDED_B), 1000);

    assertThat(shrinker.shrink(failing)).containsExactly(NEEDED_A, NEEDED_B);
    assertThat(shrinker.replays()).isPositive().isLessThan(1000);
  }

  @Test
  void stopsAtItsReplayBudgetWithASequenceThatStillFails() {
    List<ModelAction> failing = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      failing.add(new ModelAction.Advance(i));
    }
    failing.add(NEEDED_A);
    ModelShrinker shrinker = new ModelShrinker(s -> s.contains(NEEDED_A), 3);

    List<ModelAction> shrunk = shrinker.shrink(failing);

    assertThat(shrinker.replays()).isEqualTo(3);
    assertThat(shrunk).contains(NEEDED_A).hasSizeLessThan(failing.size());
  }

  @Test
  void rejectsANegativeBudget() {
    assertThatThrownBy(() -> new ModelShrinker(s -> true, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }
}
