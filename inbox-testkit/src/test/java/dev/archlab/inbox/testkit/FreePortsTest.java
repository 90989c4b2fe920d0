package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void theSystemHandsOutNoPortTwiceInOneCall() throws Exception {
    int[] ports = FreePorts.distinct(64);
    assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(64);
    assertThat(Arrays.stream(ports).allMatch(p -> p >= 1 && p <= 65535)).isTrue();
  }

  @Test
  void aCountBelowOneIsRefusedByName() {
    assertThatThrownBy(() -> FreePorts.distinct(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("count must be >= 1, was 0");
  }
}
