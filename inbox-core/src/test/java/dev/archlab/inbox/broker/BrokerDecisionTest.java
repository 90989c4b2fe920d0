package dev.archlab.inbox.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.broker.BrokerDecision.Action;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one outcome-to-broker rule table, checked for every outcome kind there is. */
class BrokerDecisionTest {

  private static final Duration RETRY_AFTER = Duration.ofMillis(750);
  private static final Duration ERROR_BACKOFF = Duration.ofSeconds(3);
  private static final IllegalStateException BOOM = new IllegalStateException("boom");

  /** One outcome of each kind, with a retry hint and an error wherever the kind carries them. */
  private static Outcome outcomeOf(Status status) {
    return new Outcome(status, "m-1", 2, RETRY_AFTER, Instant.EPOCH, BOOM, null, "kept error");
  }

  /** The expected decision of each kind, written out as the table in BrokerDecision's Javadoc. */
  private static final Map<Status, BrokerDecision> EXPECTED = new EnumMap<>(Status.class);

  static {
    EXPECTED.put(Status.APPLIED, new BrokerDecision(Action.ACKNOWLEDGE, Duration.ZERO, null, 2));
    EXPECTED.put(Status.DUPLICATE, new BrokerDecision(Action.ACKNOWLEDGE, Duration.ZERO, null, 2));
    EXPECTED.put(
        Status.DEAD, new BrokerDecision(Action.DEAD_LETTER, Duration.ZERO, "kept error", 2));
    EXPECTED.put(
        Status.IN_FLIGHT, new BrokerDecision(Action.REDELIVER_WHEN_RELEASED, RETRY_AFTER, null, 2));
    EXPECTED.put(
        Status.FAILED, new BrokerDecision(Action.REDELIVER_FOR_RETRY, RETRY_AFTER, null, 2));
  }

  @Test
  void everyOutcomeKindHasItsDecision() {
    for (Status status : Status.values()) {
      assertThat(EXPECTED).as("a decision written down for " + status).containsKey(status);
      assertThat(BrokerDecision.of(outcomeOf(status)))
          .as(status.name())
          .isEqualTo(EXPECTED.get(status));
    }
  }

  @Test
  void aDecisionFinishesExactlyWhenTheOutcomeSaysAcknowledge() {
    for (Status status : Status.values()) {
      Outcome outcome = outcomeOf(status);
      assertThat(BrokerDecision.of(outcome).finishes())
          .as(status.name())
          .isEqualTo(outcome.shouldAcknowledge());
    }
  }

  @Test
  void aDeadOutcomeReportsTheKeptErrorThenTheThrownOneThenSaysNoneWasKept() {
    Outcome kept = Outcome.dead("m", 3, BOOM);
    assertThat(BrokerDecision.of(kept).reason()).isEqualTo(kept.lastError());
    Outcome thrownOnly = new Outcome(Status.DEAD, "m", 3, null, null, BOOM, null, null);
    assertThat(BrokerDecision.of(thrownOnly).reason()).isEqualTo(BOOM.toString());
    Outcome neither = Outcome.dead("m", 3, null);
    assertThat(BrokerDecision.of(neither))
        .isEqualTo(new BrokerDecision(Action.DEAD_LETTER, null, BrokerDecision.NO_ERROR_KEPT, 3));
  }

  @Test
  void aLostLeaseIsRedeliveredWhenReleased() {
    BrokerDecision d = BrokerDecision.of(Outcome.leaseLost("m", 4, BOOM));
    assertThat(d.action()).isEqualTo(Action.REDELIVER_WHEN_RELEASED);
    assertThat(d.redeliverAfter(ERROR_BACKOFF)).isEqualTo(Duration.ZERO);
  }

  @Test
  void aPayloadMismatchIsDeadLetteredAndAnyOtherFailedCallBacksOff() {
    PayloadMismatchException mismatch = new PayloadMismatchException("orders", "m-9");
    assertThat(BrokerDecision.ofFailedCall(mismatch))
        .isEqualTo(
            new BrokerDecision(
                Action.DEAD_LETTER, null, "payload mismatch: " + mismatch.getMessage(), 0));

    StoreUnavailableException down = new StoreUnavailableException("down", null);
    BrokerDecision d = BrokerDecision.ofFailedCall(down);
    assertThat(d.action()).isEqualTo(Action.REDELIVER_AFTER_ERROR);
    assertThat(d.reason()).isEqualTo(down.toString());
    assertThat(d.redeliverAfter(ERROR_BACKOFF)).isEqualTo(ERROR_BACKOFF);
  }

  @Test
  void anUnansweredMessageBacksOffAndAMissingIdIsDeadLetteredWithNoAttempts() {
    assertThat(BrokerDecision.unanswered().action()).isEqualTo(Action.REDELIVER_AFTER_ERROR);
    assertThat(BrokerDecision.deadLetter("no message id"))
        .isEqualTo(new BrokerDecision(Action.DEAD_LETTER, Duration.ZERO, "no message id", 0));
  }

  @Test
  void everyActionHasItsRedeliveryDelay() {
    Map<Action, Duration> expected = new EnumMap<>(Action.class);
    expected.put(Action.ACKNOWLEDGE, Duration.ZERO);
    expected.put(Action.DEAD_LETTER, Duration.ZERO);
    expected.put(Action.REDELIVER_WHEN_RELEASED, RETRY_AFTER);
    expected.put(Action.REDELIVER_FOR_RETRY, RETRY_AFTER);
    expected.put(Action.REDELIVER_AFTER_ERROR, ERROR_BACKOFF);
    for (Action action : Action.values()) {
      assertThat(expected).as("a delay written down for " + action).containsKey(action);
      BrokerDecision d = new BrokerDecision(action, RETRY_AFTER, null, 1);
      assertThat(d.redeliverAfter(ERROR_BACKOFF)).as(action.name()).isEqualTo(expected.get(action));
      assertThat(d.finishes())
          .as(action.name())
          .isEqualTo(action == Action.ACKNOWLEDGE || action == Action.DEAD_LETTER);
    }
  }

  @Test
  void aDecisionRefusesNegativeDelaysAndAttempts() {
    assertThatThrownBy(() -> new BrokerDecision(Action.ACKNOWLEDGE, Duration.ofMillis(-1), null, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BrokerDecision(Action.ACKNOWLEDGE, null, null, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BrokerDecision(null, null, null, 0))
        .isInstanceOf(NullPointerException.class);
  }
}
