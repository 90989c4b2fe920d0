package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class InboxConfigTest {

  @Test
  void defaults() {
    InboxConfig c = InboxConfig.ofDefaults();

    assertThat(c.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.retryPolicy()).isSameAs(RetryPolicy.ofDefaults());
    assertThat(c.dedupWindow()).isEqualTo(DedupWindow.DEFAULT);
    assertThat(c.heartbeatInterval()).isEmpty();
    assertThat(c.fingerprintPayloads()).isFalse();
    assertThat(InboxConfig.custom().build().toString()).isEqualTo(c.toString());
  }

  @Test
  void customSettingsAreKept() {
    RetryPolicy retry = RetryPolicy.custom().maxAttempts(2).build();
    InboxConfig c =
        InboxConfig.custom()
            .lease(Duration.ofSeconds(10))
            .retryPolicy(retry)
            .dedupWindow(Duration.ofDays(14), Duration.ofDays(3))
            .heartbeatInterval(Duration.ofSeconds(2))
            .fingerprintPayloads(true)
            .build();

    assertThat(c.lease()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.retryPolicy()).isSameAs(retry);
    assertThat(c.dedupWindow()).isEqualTo(DedupWindow.of(Duration.ofDays(14), Duration.ofDays(3)));
    assertThat(c.heartbeatInterval()).contains(Duration.ofSeconds(2));
    assertThat(c.fingerprintPayloads()).isTrue();
  }

  @Test
  void fromCopiesEverySetting() {
    InboxConfig base =
        InboxConfig.custom()
            .lease(Duration.ofSeconds(9))
            .retryPolicy(RetryPolicy.custom().maxAttempts(3).build())
            .dedupWindow(Duration.ofDays(10), Duration.ofDays(2))
            .heartbeatInterval(Duration.ofSeconds(1))
            .fingerprintPayloads(true)
            .build();

    InboxConfig copy = InboxConfig.from(base).build();

    assertThat(copy.lease()).isEqualTo(base.lease());
    assertThat(copy.retryPolicy()).isSameAs(base.retryPolicy());
    assertThat(copy.dedupWindow()).isEqualTo(base.dedupWindow());
    assertThat(copy.heartbeatInterval()).isEqualTo(base.heartbeatInterval());
    assertThat(copy.fingerprintPayloads()).isTrue();
  }

  @Test
  void heartbeatIsAThirdOfTheLease() {
    InboxConfig c = InboxConfig.custom().lease(Duration.ofSeconds(30)).heartbeat().build();

    assertThat(c.heartbeatInterval()).contains(Duration.ofSeconds(10));
  }

  @Test
  void heartbeatUsesTheLeaseSetAfterIt() {
    InboxConfig c = InboxConfig.custom().heartbeat().lease(Duration.ofSeconds(9)).build();

    assertThat(c.heartbeatInterval()).contains(Duration.ofSeconds(3));
  }

  @Test
  void theLastHeartbeatSettingWins() {
    InboxConfig explicitLast =
        InboxConfig.custom().heartbeat().heartbeatInterval(Duration.ofSeconds(1)).build();
    InboxConfig thirdLast =
        InboxConfig.custom().heartbeatInterval(Duration.ofSeconds(1)).heartbeat().build();

    assertThat(explicitLast.heartbeatInterval()).contains(Duration.ofSeconds(1));
    assertThat(thirdLast.heartbeatInterval()).contains(Duration.ofSeconds(10));
  }

  @Test
  void heartbeatIntervalCanBeSwitchedOffAgain() {
    InboxConfig c =
        InboxConfig.custom()
            .heartbeatInterval(Duration.ofSeconds(1))
            .heartbeatInterval(null)
            .build();

    assertThat(c.heartbeatInterval()).isEmpty();
  }

  /**
   * A builder must be reusable: building once must not freeze the "third of the lease" heartbeat at
   * the lease of that first build.
   */
  @Test
  void builderIsReusableAfterBuildWithHeartbeatAtAThird() {
    InboxConfig.Builder b = InboxConfig.custom().lease(Duration.ofSeconds(30)).heartbeat();
    InboxConfig first = b.build();

    InboxConfig second = b.lease(Duration.ofSeconds(3)).build();

    assertThat(first.heartbeatInterval()).contains(Duration.ofSeconds(10));
    assertThat(second.heartbeatInterval()).contains(Duration.ofSeconds(1));
  }

  @Test
  void refusesHeartbeatIntervalEqualToTheLeaseNamingBoth() {
    assertThatThrownBy(
            () ->
                InboxConfig.custom()
                    .lease(Duration.ofSeconds(5))
                    .heartbeatInterval(Duration.ofSeconds(5))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("heartbeat interval (PT5S)")
        .hasMessageContaining("lease (PT5S)");
  }

  @Test
  void refusesHeartbeatIntervalLongerThanTheLease() {
    assertThatThrownBy(
            () ->
                InboxConfig.custom()
                    .lease(Duration.ofSeconds(5))
                    .heartbeatInterval(Duration.ofSeconds(6))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("heartbeat interval (PT6S)")
        .hasMessageContaining("lease (PT5S)");
  }

  @Test
  void refusesZeroOrNegativeHeartbeatInterval() {
    assertThatThrownBy(() -> InboxConfig.custom().heartbeatInterval(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("heartbeat interval")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> InboxConfig.custom().heartbeatInterval(Duration.ofSeconds(-1)).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("heartbeat interval")
        .hasMessageContaining("PT-1S");
  }

  @Test
  void refusesNullZeroAndNegativeLease() {
    assertThatThrownBy(() -> InboxConfig.custom().lease(null).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("lease")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> InboxConfig.custom().lease(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("lease")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> InboxConfig.custom().lease(Duration.ofSeconds(-30)).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("lease")
        .hasMessageContaining("PT-30S");
  }

  @Test
  void refusesRetentionNotLongerThanTheLeaseNamingBoth() {
    assertThatThrownBy(() -> InboxConfig.custom().lease(Duration.ofDays(7)).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention (PT168H)")
        .hasMessageContaining("lease (PT168H)");
    assertThatThrownBy(
            () ->
                InboxConfig.custom()
                    .lease(Duration.ofHours(5))
                    .dedupWindow(Duration.ofHours(4), Duration.ofHours(1))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention (PT4H)")
        .hasMessageContaining("lease (PT5H)");
  }

  @Test
  void refusesRetentionNotLongerThanRedeliveryWindowThroughTheBuilder() {
    assertThatThrownBy(
            () -> InboxConfig.custom().dedupWindow(Duration.ofDays(1), Duration.ofDays(2)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("PT24H")
        .hasMessageContaining("PT48H");
  }

  @Test
  void refusesMissingRetryPolicyAndDedupWindowNamingThem() {
    // Documented as InvalidConfigurationException; currently a NullPointerException. Either way
    // the build must fail and name the setting.
    assertThatThrownBy(() -> InboxConfig.custom().retryPolicy(null).build())
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("retryPolicy");
    assertThatThrownBy(() -> InboxConfig.custom().dedupWindow(null).build())
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("dedupWindow");
  }

  @Test
  void heartbeatAtAThirdFollowsALeaseChangedThroughFrom() {
    InboxConfig base = InboxConfig.custom().lease(Duration.ofSeconds(30)).heartbeat().build();
    InboxConfig shorter = InboxConfig.from(base).lease(Duration.ofSeconds(3)).build();
    assertThat(shorter.heartbeatInterval()).contains(Duration.ofSeconds(1));
    InboxConfig fixed =
        InboxConfig.custom()
            .lease(Duration.ofSeconds(30))
            .heartbeatInterval(Duration.ofSeconds(5))
            .build();
    assertThat(InboxConfig.from(fixed).lease(Duration.ofSeconds(60)).build().heartbeatInterval())
        .contains(Duration.ofSeconds(5));
  }
}
