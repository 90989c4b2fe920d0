package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The id space of a simulate run: its own per set of arguments, the same on a rerun. */
class SimulationIdsTest {

  static SimulationIds base() {
    return SimulationIds.of("sim", "inbox", 1000, 2, 42, 5);
  }

  @Test
  void everyArgumentThatDefinesTheRunGivesItsOwnKeyAndARerunTheSame() {
    List<SimulationIds> runs =
        List.of(
            base(),
            SimulationIds.of("other", "inbox", 1000, 2, 42, 5),
            SimulationIds.of("sim", "orders_inbox", 1000, 2, 42, 5),
            SimulationIds.of("sim", "inbox", 20000, 2, 42, 5),
            SimulationIds.of("sim", "inbox", 1000, 3, 42, 5),
            SimulationIds.of("sim", "inbox", 1000, 2, 43, 5),
            SimulationIds.of("sim", "inbox", 1000, 2, 42, 0));
    Set<String> prefixes = new TreeSet<>();
    for (SimulationIds r : runs) {
      prefixes.add(r.prefix());
    }
    assertThat(prefixes).hasSize(runs.size());
    assertThat(base().prefix()).isEqualTo(base().prefix()).startsWith("sim-42-").endsWith("-");
    assertThat(base().key()).hasSize(10).matches("[0-9a-f]+");
    // Unquoted table names are one name whatever their case.
    assertThat(SimulationIds.of("sim", "INBOX", 1000, 2, 42, 5).prefix())
        .isEqualTo(base().prefix());
    // No prefix is a prefix of another run's ids.
    for (SimulationIds a : runs) {
      for (SimulationIds b : runs) {
        if (a != b) {
          assertThat(b.id(0)).doesNotStartWith(a.prefix());
        }
      }
    }
  }

  @Test
  void idsSortLikeTheirIndexesSoThePoisonIsARange() {
    SimulationIds ids = SimulationIds.of("sim", "inbox", 10_000_000, 0, -7, 12);
    List<String> sample = new ArrayList<>();
    for (int i : new int[] {0, 1, 9, 10, 11, 12, 99, 100, 9_999_999}) {
      sample.add(ids.id(i));
    }
    assertThat(sample).isSorted();
    assertThat(ids.id(11)).isLessThan(ids.firstNonPoison());
    assertThat(ids.id(12)).isEqualTo(ids.firstNonPoison());
    assertThat(ids.isPoison(ids.id(11))).isTrue();
    assertThat(ids.isPoison(ids.id(12))).isFalse();
    assertThat(ids.index(ids.id(9_999_999))).isEqualTo(9_999_999);
    assertThat(ids.contains(base().id(3))).isFalse();
    assertThat(ids.index(ids.prefix() + "12")).isEqualTo(-1);
    assertThat(ids.likePattern()).doesNotContain("_").endsWith("%");
  }
}
