package dev.archlab.inbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Each branch of the shared begin decision and fencing refusal, at exact instants. */
class RecordStateMachineTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static BeginRequest request(int maxAttempts, String hash) {
    return new BeginRequest("orders", "m-1", LEASE, maxAttempts, hash);
  }

  private static InboxRecord record(RecordState state, int attempts, Instant lease, String error) {
    return new InboxRecord("orders", "m-1", state, attempts, lease, T0, T0, error, "h", null);
  }

  @Test
  void doneIsDuplicateAndDeadIsDeadWithTheRecordAsRead() {
    InboxRecord done = record(RecordState.DONE, 1, null, null);
    InboxRecord dead = record(RecordState.DEAD, 3, null, "boom");

    BeginResult dup = RecordStateMachine.begin(request(3, null), done, T0.plusSeconds(5));
    BeginResult parked = RecordStateMachine.begin(request(3, null), dead, T0.plusSeconds(5));

    assertThat(dup.kind()).isEqualTo(Kind.DUPLICATE);
    assertThat(dup.record()).isSameAs(done);
    assertThat(parked.kind()).isEqualTo(Kind.DEAD);
    assertThat(parked.record()).isSameAs(dead);
    assertThat(RecordStateMachine.writes(dup.kind())).isFalse();
    assertThat(RecordStateMachine.writes(parked.kind())).isFalse();
  }

  @Test
  void processingBeforeItsLeaseEndIsInFlightUpToTheLastNanosecond() {
    Instant until = T0.plus(LEASE);
    InboxRecord running = record(RecordState.PROCESSING, 1, until, null);

    BeginResult r = RecordStateMachine.begin(request(3, null), running, until.minusNanos(1));

    assertThat(r.kind()).isEqualTo(Kind.IN_FLIGHT);
    assertThat(r.retryAfter()).isEqualTo(Duration.ofNanos(1));
    assertThat(RecordStateMachine.writes(r.kind())).isFalse();
  }

  @Test
  void expiredLeaseWithoutErrorIsTakenOverWithTheNextAttemptAndANewLease() {
    Instant until = T0.plus(LEASE);
    Instant now = until; // the lease end itself is already past
    InboxRecord running = record(RecordState.PROCESSING, 1, until, null);

    BeginResult r = RecordStateMachine.begin(request(3, null), running, now);

    assertThat(r.kind()).isEqualTo(Kind.TAKEN_OVER);
    assertThat(r.record().attempts()).isEqualTo(2);
    assertThat(r.record().state()).isEqualTo(RecordState.PROCESSING);
    assertThat(r.record().leaseUntil()).isEqualTo(now.plus(LEASE));
    assertThat(r.record().updatedAt()).isEqualTo(now);
    assertThat(RecordStateMachine.writes(r.kind())).isTrue();
  }

  @Test
  void passedRetryTimeOfARecordedFailureIsARetryThatClearsTheError() {
    InboxRecord failed = record(RecordState.PROCESSING, 2, T0.plusSeconds(1), "boom");

    BeginResult r = RecordStateMachine.begin(request(3, null), failed, T0.plusSeconds(1));

    assertThat(r.kind()).isEqualTo(Kind.RETRIED);
    assertThat(r.record().attempts()).isEqualTo(3);
    assertThat(r.record().lastError()).isNull();
    assertThat(RecordStateMachine.writes(r.kind())).isTrue();
  }

  @Test
  void expiredLeaseAtTheLastAttemptDiesKeepingTheErrorOrSayingItCrashed() {
    InboxRecord crashed = record(RecordState.PROCESSING, 3, T0.plusSeconds(1), null);
    InboxRecord failed = record(RecordState.PROCESSING, 3, T0.plusSeconds(1), "boom");

    BeginResult died = RecordStateMachine.begin(request(3, null), crashed, T0.plusSeconds(2));
    BeginResult diedFailed = RecordStateMachine.begin(request(3, null), failed, T0.plusSeconds(2));

    assertThat(died.kind()).isEqualTo(Kind.DIED);
    assertThat(died.record().state()).isEqualTo(RecordState.DEAD);
    assertThat(died.record().attempts()).isEqualTo(3);
    assertThat(died.record().leaseUntil()).isNull();
    assertThat(died.record().lastError()).contains("lease expired without completion after 3");
    assertThat(diedFailed.record().lastError()).isEqualTo("boom");
    assertThat(RecordStateMachine.writes(died.kind())).isTrue();
  }

  @Test
  void differentPayloadHashIsRefusedButAMissingOneOnEitherSideIsNot() {
    InboxRecord done = record(RecordState.DONE, 1, null, null);

    assertThatThrownBy(() -> RecordStateMachine.begin(request(3, "other"), done, T0))
        .isInstanceOf(PayloadMismatchException.class);
    assertThat(RecordStateMachine.begin(request(3, null), done, T0).kind())
        .isEqualTo(Kind.DUPLICATE);
    assertThat(RecordStateMachine.begin(request(3, "h"), done, T0).kind())
        .isEqualTo(Kind.DUPLICATE);
  }

  @Test
  void onlyTheCurrentAttemptOfAProcessingRecordIsOwned() {
    Claim claim = new Claim("orders", "m-1", 2, T0);

    assertThat(RecordStateMachine.owns(claim, RecordState.PROCESSING, 2)).isTrue();
    assertThat(RecordStateMachine.owns(claim, RecordState.PROCESSING, 3)).isFalse();
    assertThat(RecordStateMachine.owns(claim, RecordState.DONE, 2)).isFalse();
    assertThat(RecordStateMachine.owns(claim, RecordState.DEAD, 2)).isFalse();
  }

  @Test
  void refusalIsUnknownForNoRecordOrAFutureTokenAndLeaseLostOtherwise() {
    Claim claim = new Claim("orders", "m-1", 2, T0);

    assertThat(RecordStateMachine.refusal(claim, null))
        .isInstanceOf(UnknownClaimException.class)
        .hasMessageContaining("no record exists");
    assertThat(RecordStateMachine.refusal(claim, RecordState.PROCESSING, 1))
        .isInstanceOf(UnknownClaimException.class)
        .hasMessageContaining("only reached attempt 1");
    assertThat(RecordStateMachine.refusal(claim, record(RecordState.DONE, 2, null, null)))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.currentState()).isEqualTo(RecordState.DONE);
              assertThat(e.currentAttempts()).isEqualTo(2);
            });
    assertThat(RecordStateMachine.refusal(claim, RecordState.PROCESSING, 3))
        .isInstanceOf(LeaseLostException.class);
  }
}
