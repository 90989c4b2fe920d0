package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A fault scenario whose faults all missed the running consumers fails: the checks {@link
 * ChaosRun#run} applies, on made-up figures. No database.
 */
class FaultChecksTest {

  private static Figures figures(long storeErrors, long recoveryMs) {
    return new Figures(
        "server restart",
        "unit-test-db",
        "short",
        1,
        3,
        3000,
        27000,
        27000,
        0,
        "restart",
        1,
        0,
        0,
        0,
        5,
        25,
        storeErrors,
        recoveryMs,
        20.0);
  }

  /** Faults ended with these hits, every one of them seen met by a consumer. */
  private static ChaosRun.Injected injected(boolean... hits) {
    ChaosRun.Injected i = new ChaosRun.Injected();
    for (boolean hit : hits) {
      i.ended(hit);
      i.met++;
    }
    return i;
  }

  @Test
  void anOutageTheConsumersMetPasses() {
    assertThatCode(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.OUTAGES, figures(3, 400), injected(true)))
        .doesNotThrowAnyException();
  }

  @Test
  void outagesAfterTheConsumersFinishedFail() {
    assertThatThrownBy(
            () ->
                ChaosRun.assertInjected(
                    ChaosRun.Faults.OUTAGES, figures(3, 400), injected(false, false)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("proves nothing");
    assertThatThrownBy(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.OUTAGES, figures(3, 400), injected()))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void anOutageNoConsumerWasSeenToMeetFails() {
    // Store errors in the summary are not enough: the driver must have seen a consumer meet it.
    ChaosRun.Injected unseen = new ChaosRun.Injected();
    unseen.ended(true);
    assertThatThrownBy(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.OUTAGES, figures(3, 400), unseen))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("saw a consumer meet");
  }

  @Test
  void anOutageWithoutMeasuredRecoveryFails() {
    assertThatThrownBy(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.OUTAGES, figures(3, -1), injected(true)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("recovery");
  }

  @Test
  void killsThatHitNoRunningConsumerFail() {
    assertThatThrownBy(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.KILLS, figures(0, -1), injected()))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("SIGKILLs");
    assertThatCode(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.KILLS, figures(0, -1), injected(true)))
        .doesNotThrowAnyException();
  }

  @Test
  void aKillCountsOnlyWhenItsVictimWasFoundMidRun() {
    assertThat(new Fleet.Kill(0, Fleet.KILLED_BY_SIGKILL, true).hitRunningProcess()).isTrue();
    // Frozen after its verdict, or ended by itself before the freeze: no fault.
    assertThat(new Fleet.Kill(0, Fleet.KILLED_BY_SIGKILL, false).hitRunningProcess()).isFalse();
    assertThat(new Fleet.Kill(0, 0, false).hitRunningProcess()).isFalse();
  }

  @Test
  void aFaultInANoFaultScenarioFails() {
    assertThatThrownBy(
            () -> ChaosRun.assertInjected(ChaosRun.Faults.NONE, figures(0, -1), injected(true)))
        .isInstanceOf(AssertionError.class);
  }
}
