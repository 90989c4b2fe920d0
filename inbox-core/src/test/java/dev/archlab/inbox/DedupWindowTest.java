package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DedupWindowTest {

  @Test
  void defaultIsSevenDaysAgainstOneDay() {
    assertThat(DedupWindow.DEFAULT.retention()).isEqualTo(Duration.ofDays(7));
    assertThat(DedupWindow.DEFAULT.redeliveryWindow()).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void acceptsRetentionLongerThanRedeliveryWindow() {
    DedupWindow w = DedupWindow.of(Duration.ofDays(30), Duration.ofDays(29));

    assertThat(w.retention()).isEqualTo(Duration.ofDays(30));
    assertThat(w.redeliveryWindow()).isEqualTo(Duration.ofDays(29));
    assertThat(w).isEqualTo(new DedupWindow(Duration.ofDays(30), Duration.ofDays(29)));
  }

  @Test
  void refusesRetentionEqualToRedeliveryWindowNamingBothValues() {
    assertThatThrownBy(() -> DedupWindow.of(Duration.ofDays(3), Duration.ofDays(3)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention (PT72H)")
        .hasMessageContaining("redelivery window (PT72H)");
  }

  @Test
  void refusesRetentionShorterThanRedeliveryWindowNamingBothValues() {
    assertThatThrownBy(() -> DedupWindow.of(Duration.ofHours(12), Duration.ofDays(2)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("dedup retention (PT12H)")
        .hasMessageContaining("broker redelivery window (PT48H)")
        .hasMessageContaining("applied twice");
  }

  @Test
  void refusesMissingOrNonPositiveRetention() {
    assertThatThrownBy(() -> DedupWindow.of(null, Duration.ofDays(1)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("dedup retention")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> DedupWindow.of(Duration.ZERO, Duration.ofDays(1)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("dedup retention")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> DedupWindow.of(Duration.ofDays(-1), Duration.ofDays(1)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("dedup retention")
        .hasMessageContaining("PT-24H");
  }

  @Test
  void refusesMissingOrNonPositiveRedeliveryWindow() {
    assertThatThrownBy(() -> DedupWindow.of(Duration.ofDays(7), null))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("redelivery window")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> DedupWindow.of(Duration.ofDays(7), Duration.ZERO))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("redelivery window")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> DedupWindow.of(Duration.ofDays(7), Duration.ofHours(-1)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("redelivery window")
        .hasMessageContaining("PT-1H");
  }
}
