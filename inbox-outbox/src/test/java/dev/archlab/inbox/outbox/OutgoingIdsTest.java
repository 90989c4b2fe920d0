package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidMessageIdException;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OutgoingIdsTest {

  @Test
  @DisplayName("derived ids: the same parts give the same id, a pinned value that never changes")
  void derivedIsStable() {
    String id = OutgoingIds.derived("billing", "order-17", 0);
    assertThat(OutgoingIds.derived("billing", "order-17", 0)).isEqualTo(id);
    // Pinned: a change of the derivation would make re-runs after an upgrade send new ids.
    assertThat(id).isEqualTo("52cb6dfb-0fe6-55c9-a805-8eab87b4aaa5");
    UUID uuid = UUID.fromString(id);
    assertThat(uuid.version()).isEqualTo(5);
    assertThat(uuid.variant()).isEqualTo(2);
    assertThat(id).hasSize(36);
  }

  @Test
  @DisplayName("derived ids differ by consumer, message and position, and parts never run together")
  void derivedDistinguishesParts() {
    Set<String> ids = new HashSet<>();
    ids.add(OutgoingIds.derived("a/b", "c", 0));
    ids.add(OutgoingIds.derived("a", "b/c", 0));
    ids.add(OutgoingIds.derived("a", "b/c", 1));
    ids.add(OutgoingIds.derived("b", "b/c", 1));
    ids.add(OutgoingIds.derived("ab", "c", 0));
    ids.add(OutgoingIds.derived("a", "bc", 0));
    assertThat(ids).hasSize(6);
  }

  @Test
  @DisplayName("derived ids refuse an invalid message id and a negative position")
  void derivedRefusesBadParts() {
    assertThatThrownBy(() -> OutgoingIds.derived("billing", " ", 0))
        .isInstanceOf(InvalidMessageIdException.class);
    assertThatThrownBy(() -> OutgoingIds.derived("billing", "m", -1))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("-1");
  }

  @Test
  @DisplayName("random ids are version 7 UUIDs, all different")
  void randomIsV7() {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String id = OutgoingIds.random();
      UUID uuid = UUID.fromString(id);
      assertThat(uuid.version()).isEqualTo(7);
      assertThat(uuid.variant()).isEqualTo(2);
      ids.add(id);
    }
    assertThat(ids).hasSize(1000);
  }
}
