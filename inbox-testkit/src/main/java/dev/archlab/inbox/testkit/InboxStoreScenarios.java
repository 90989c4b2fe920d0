package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The eight scenarios of the store contract (docs/DESIGN.md §4), one test each: repeat delivery,
 * concurrent duplicates, retry after failure, crash and takeover, prune and the dedup window, stale
 * owner fenced, poison to DEAD, prune never touches live work. Part of {@link
 * InboxStoreContractTest}, which store authors subclass.
 */
public abstract class InboxStoreScenarios extends InboxStoreContractSupport {

  /** For subclasses only. */
  protected InboxStoreScenarios() {}

  // ---- docs/DESIGN.md §4, scenario by scenario
  // -------------------------------------------------------

  @Test
  @DisplayName("1. repeat delivery: APPLIED, DUPLICATE, DUPLICATE; handler ran once")
  void repeatDeliveryAppliesOnce() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c = consumer(CONSUMER, counting(calls)).build();
    List<Status> statuses = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      statuses.add(c.consume(Message.of("m-1", "order.placed", new byte[0])).status());
    }
    assertThat(statuses).containsExactly(Status.APPLIED, Status.DUPLICATE, Status.DUPLICATE);
    assertThat(calls).hasValue(1);
    InboxRecord done = store().find(CONSUMER, "m-1").orElseThrow();
    assertThat(done.state()).isEqualTo(RecordState.DONE);
    assertThat(done.attempts()).isEqualTo(1);
  }

  @Test
  @Timeout(60)
  @DisplayName("2. concurrent duplicates: exactly one APPLIED, the rest IN_FLIGHT or DUPLICATE")
  void concurrentDuplicatesApplyOnce() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  calls.incrementAndGet();
                  Thread.sleep(20);
                })
            .build();
    List<Status> statuses = new ArrayList<>();
    for (Outcome o : race(workerThreads(), () -> c.consume(Message.of("m-concurrent")))) {
      statuses.add(o.status());
    }
    assertThat(statuses).filteredOn(s -> s == Status.APPLIED).hasSize(1);
    assertThat(statuses)
        .allMatch(s -> s == Status.APPLIED || s == Status.IN_FLIGHT || s == Status.DUPLICATE);
    assertThat(calls).hasValue(1);
    InboxRecord done = store().find(CONSUMER, "m-concurrent").orElseThrow();
    assertThat(done.state()).isEqualTo(RecordState.DONE);
    assertThat(done.attempts()).as("nobody took the live claim over").isEqualTo(1);
  }

  @Test
  @DisplayName("3. a failed handler is retried after its retry time and succeeds on the third try")
  void handlerFailureIsRetriedAfterBackoff() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  if (calls.incrementAndGet() <= 2) {
                    throw new IllegalStateException("provider timeout");
                  }
                })
            .build();
    Message m = Message.of("m-retry");

    Outcome first = c.consume(m);
    assertThat(first.status()).isEqualTo(Status.FAILED);
    assertThat(first.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(first.error()).hasMessage("provider timeout");
    // Before the retry time the failed message is held like a live lease.
    Outcome early = c.consume(m);
    assertThat(early.status()).isEqualTo(Status.IN_FLIGHT);
    assertThat(early.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(calls).hasValue(1);

    advance(Duration.ofSeconds(1));
    Outcome second = c.consume(m);
    assertThat(second.status()).isEqualTo(Status.FAILED);
    assertThat(second.attempts()).isEqualTo(2);
    assertThat(second.retryAfter()).isEqualTo(Duration.ofSeconds(2));
    // Not before the second retry time either.
    advance(Duration.ofSeconds(1));
    assertThat(c.consume(m).status()).isEqualTo(Status.IN_FLIGHT);
    assertThat(calls).hasValue(2);

    advance(Duration.ofSeconds(1));
    Outcome third = c.consume(m);
    assertThat(third.status()).isEqualTo(Status.APPLIED);
    assertThat(third.attempts()).isEqualTo(3);
    assertThat(calls).hasValue(3);
    // The error is the state the record waited in; the attempt that succeeded started without it.
    assertThat(store().find(CONSUMER, "m-retry").orElseThrow().lastError()).isNull();
  }

  @Test
  @DisplayName(
      "a due retry after a recorded failure is RETRIED, not a takeover; that retry's crash is one")
  void dueRetryIsNotATakeover() {
    Claim first = begin("m-retried").claim();
    store().fail(first, "provider timeout", Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));

    BeginResult retried = begin("m-retried");
    assertThat(retried.kind()).isEqualTo(Kind.RETRIED);
    assertThat(retried.claimed()).isTrue();
    assertThat(retried.record().attempts()).isEqualTo(2);
    assertThat(retried.record().lastError()).isNull();

    // The retrying run dies without recording anything: its lease runs out under it.
    advance(LEASE);
    BeginResult taken = begin("m-retried");
    assertThat(taken.kind()).isEqualTo(Kind.TAKEN_OVER);
    assertThat(taken.record().attempts()).isEqualTo(3);

    List<InboxEvent.Kind> kinds = new CopyOnWriteArrayList<>();
    store().fail(taken.claim(), "provider timeout again", Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));
    IdempotentConsumer c =
        consumer(CONSUMER, (message, attempt) -> {}).listener(e -> kinds.add(e.kind())).build();
    assertThat(c.consume(Message.of("m-retried")).status()).isEqualTo(Status.APPLIED);
    assertThat(kinds)
        .containsExactly(InboxEvent.Kind.RETRY, InboxEvent.Kind.CLAIMED, InboxEvent.Kind.APPLIED);
  }

  @Test
  @DisplayName(
      "4. crash before complete: no claim within the lease, takeover with attempts 2 after")
  void crashBeforeCompleteIsTakenOverAfterTheLease() {
    BeginResult first = begin("m-crash");
    assertThat(first.kind()).isEqualTo(Kind.CLAIMED);
    assertThat(first.record().attempts()).isEqualTo(1);
    // The owner "crashes": neither complete nor fail is called.

    advance(LEASE.dividedBy(2));
    BeginResult within = begin("m-crash");
    assertThat(within.kind()).isEqualTo(Kind.IN_FLIGHT);
    assertThat(within.retryAfter()).isPositive().isLessThanOrEqualTo(LEASE.dividedBy(2));
    // Still nobody shortly before the lease ends, and the record is unchanged by the attempts.
    advance(LEASE.dividedBy(2).minusSeconds(5));
    assertThat(begin("m-crash").kind()).isEqualTo(Kind.IN_FLIGHT);
    assertThat(store().find(CONSUMER, "m-crash").orElseThrow().attempts()).isEqualTo(1);

    advance(Duration.ofSeconds(5));
    BeginResult after = begin("m-crash");
    assertThat(after.kind()).isEqualTo(Kind.TAKEN_OVER);
    assertThat(after.record().attempts()).isEqualTo(2);
    assertThat(after.record().state()).isEqualTo(RecordState.PROCESSING);

    store().complete(after.claim(), null);
    advance(Duration.ofSeconds(1));
    assertThat(begin("m-crash").kind()).isEqualTo(Kind.DUPLICATE);
    advance(LEASE.multipliedBy(100));
    assertThat(begin("m-crash").kind()).isEqualTo(Kind.DUPLICATE);
    // Not through the consumer API either, nor by the crashed first owner.
    AtomicInteger calls = new AtomicInteger();
    assertThat(consumer(CONSUMER, counting(calls)).build().consume(Message.of("m-crash")).status())
        .isEqualTo(Status.DUPLICATE);
    assertThat(calls).hasValue(0);
    assertThatThrownBy(() -> store().complete(first.claim(), null))
        .isInstanceOf(LeaseLostException.class);
    assertThat(store().find(CONSUMER, "m-crash").orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  @DisplayName("5. prune defines the window: after pruning a DONE record the id applies again")
  void pruneDefinesTheDedupWindow() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c = consumer(CONSUMER, counting(calls)).build();
    assertThat(c.consume(Message.of("m-window")).status()).isEqualTo(Status.APPLIED);
    advance(Duration.ofHours(1));

    long removed = store().prune(store().currentTime());
    assertThat(removed).isEqualTo(1);
    assertThat(store().find(CONSUMER, "m-window")).isEmpty();
    assertThat(c.consume(Message.of("m-window")).status()).isEqualTo(Status.APPLIED);
    assertThat(calls).hasValue(2);
  }

  @Test
  @DisplayName("6. stale owner: A's lease is taken over, B completes, A's completion is refused")
  void staleOwnerIsFencedOut() {
    AtomicInteger runsOfA = new AtomicInteger();
    AtomicInteger runsOfB = new AtomicInteger();
    List<InboxRecord> afterB = new CopyOnWriteArrayList<>();
    List<InboxEvent> eventsOfA = new CopyOnWriteArrayList<>();
    byte[] resultOfA = "effect-of-A".getBytes(StandardCharsets.UTF_8);
    byte[] resultOfB = "effect-of-B".getBytes(StandardCharsets.UTF_8);
    IdempotentConsumer b =
        consumer(
                CONSUMER,
                (m, attempt) -> {
                  runsOfB.incrementAndGet();
                  attempt.keepResult(resultOfB);
                })
            .build();
    IdempotentConsumer a =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  runsOfA.incrementAndGet();
                  // A pauses past its lease (a GC pause); B takes over and finishes meanwhile.
                  advance(LEASE.plusSeconds(1));
                  assertThat(b.consume(message).status()).isEqualTo(Status.APPLIED);
                  afterB.add(store().find(CONSUMER, message.id()).orElseThrow());
                  // A's own effect, recorded with its completion: it must never be committed.
                  attempt.keepResult(resultOfA);
                })
            .listener(eventsOfA::add)
            .build();

    assertThatThrownBy(() -> a.consume(Message.of("m-stale")))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("m-stale")
        .satisfies(
            e -> {
              LeaseLostException lost = (LeaseLostException) e;
              assertThat(lost.claim().fencingToken()).isEqualTo(1);
              assertThat(lost.currentState()).isEqualTo(RecordState.DONE);
              assertThat(lost.currentAttempts()).isEqualTo(2);
            });
    assertThat(runsOfA).hasValue(1);
    assertThat(runsOfB).hasValue(1);
    assertThat(eventsOfA)
        .extracting(InboxEvent::kind)
        .containsOnlyOnce(InboxEvent.Kind.LEASE_LOST)
        .doesNotContain(InboxEvent.Kind.APPLIED, InboxEvent.Kind.FAILED);
    // One effect: the record is exactly what B's completion wrote; A's refused one changed nothing.
    InboxRecord record = store().find(CONSUMER, "m-stale").orElseThrow();
    assertThat(afterB).hasSize(1);
    assertThat(record).isEqualTo(afterB.get(0));
    assertThat(record.state()).isEqualTo(RecordState.DONE);
    assertThat(record.attempts()).isEqualTo(2);
    assertThat(record.result()).isEqualTo(resultOfB);
    Outcome duplicate = b.consume(Message.of("m-stale"));
    assertThat(duplicate.status()).isEqualTo(Status.DUPLICATE);
    assertThat(duplicate.result()).hasValueSatisfying(r -> assertThat(r).isEqualTo(resultOfB));
    assertThat(runsOfA.get() + runsOfB.get()).isEqualTo(2);
  }

  @Test
  @DisplayName("6b. stale owner at the SPI: complete, fail, extend and markDead are all refused")
  void staleClaimIsRefusedByEveryFencedOperation() {
    Claim stale = begin("m-fence").claim();
    advance(LEASE);
    Claim current = begin("m-fence").claim();
    assertThat(current.fencingToken()).isEqualTo(2);
    InboxRecord before = store().find(CONSUMER, "m-fence").orElseThrow();

    assertThatThrownBy(() -> store().complete(stale, null)).isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store().fail(stale, "x", Duration.ofSeconds(1)))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store().extend(stale, LEASE)).isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store().markDead(stale, "x")).isInstanceOf(LeaseLostException.class);
    assertThat(store().find(CONSUMER, "m-fence")).contains(before);

    store().complete(current, null);
    // After DONE even the current token is refused: DONE is terminal.
    assertThatThrownBy(() -> store().complete(current, null))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store().fail(current, "late", Duration.ZERO))
        .isInstanceOf(LeaseLostException.class);
    assertThat(store().find(CONSUMER, "m-fence").orElseThrow().state()).isEqualTo(RecordState.DONE);
  }

  @Test
  @DisplayName("7. poison: max failed attempts park it DEAD, dead letter runs once, then DEAD")
  void poisonMessageIsParkedAsDead() {
    AtomicInteger calls = new AtomicInteger();
    List<String> deadLetters = new CopyOnWriteArrayList<>();
    List<InboxRecord> deadLetterRecords = new CopyOnWriteArrayList<>();
    List<InboxEvent> events = new CopyOnWriteArrayList<>();
    IdempotentConsumer c =
        IdempotentConsumer.builder(CONSUMER, store())
            .handler(
                (message, attempt) -> {
                  calls.incrementAndGet();
                  throw new IllegalArgumentException("cannot parse order");
                })
            .config(config(3).build())
            .listener(events::add)
            .deadLetterHandler(
                (message, record) -> {
                  deadLetters.add(message.id());
                  deadLetterRecords.add(record);
                })
            .build();
    Message poison = Message.of("m-poison");

    assertThat(c.consume(poison).status()).isEqualTo(Status.FAILED);
    advance(Duration.ofSeconds(1));
    assertThat(c.consume(poison).status()).isEqualTo(Status.FAILED);
    advance(Duration.ofSeconds(2));
    Outcome third = c.consume(poison);
    assertThat(third.status()).isEqualTo(Status.DEAD);
    assertThat(third.error()).hasMessage("cannot parse order");
    assertThat(third.shouldAcknowledge()).isTrue();
    assertThat(deadLetters).containsExactly("m-poison");
    // The dead-letter path sees the parked record, and runs once: one DEAD event.
    assertThat(deadLetterRecords)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.state()).isEqualTo(RecordState.DEAD);
              assertThat(r.attempts()).isEqualTo(3);
            });
    assertThat(events).filteredOn(e -> e.kind() == InboxEvent.Kind.DEAD).hasSize(1);
    InboxRecord parked = store().find(CONSUMER, "m-poison").orElseThrow();
    events.clear();

    // Later deliveries, on this or another instance, report DEAD without running anything.
    IdempotentConsumer other =
        IdempotentConsumer.builder(CONSUMER, store())
            .handler((message, attempt) -> calls.incrementAndGet())
            .config(config(3).build())
            .listener(events::add)
            .deadLetterHandler((message, record) -> deadLetters.add(message.id()))
            .build();
    for (int i = 0; i < 3; i++) {
      advance(Duration.ofMinutes(10));
      Outcome later = (i % 2 == 0 ? c : other).consume(poison);
      assertThat(later.status()).isEqualTo(Status.DEAD);
      assertThat(later.shouldAcknowledge()).isTrue();
      assertThat(later.attempts()).isEqualTo(3);
    }
    assertThat(calls).hasValue(3);
    assertThat(deadLetters).containsExactly("m-poison");
    assertThat(events)
        .extracting(InboxEvent::kind)
        .containsExactly(
            InboxEvent.Kind.DEAD_SEEN, InboxEvent.Kind.DEAD_SEEN, InboxEvent.Kind.DEAD_SEEN);
    InboxRecord dead = store().find(CONSUMER, "m-poison").orElseThrow();
    // Unchanged by the later deliveries. Fixtures may move time by shifting stored timestamps, so
    // compare what a write would change: the fields, and updatedAt relative to createdAt.
    assertThat(dead.lastError()).isEqualTo(parked.lastError());
    assertThat(Duration.between(dead.createdAt(), dead.updatedAt()))
        .isEqualTo(Duration.between(parked.createdAt(), parked.updatedAt()));
    assertThat(dead.state()).isEqualTo(RecordState.DEAD);
    assertThat(dead.attempts()).isEqualTo(3);
    assertThat(dead.lastError()).contains("cannot parse order");
  }

  @Test
  @DisplayName("7b. poison by crash: a message that kills its process every time ends DEAD")
  void messageThatCrashesEveryAttemptEndsDead() {
    List<String> deadLetters = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder(CONSUMER, store())
            .handler((message, attempt) -> calls.incrementAndGet())
            .config(config(3).build())
            .deadLetterHandler((message, record) -> deadLetters.add(message.id()))
            .build();
    // Three "processes" claim and die (no complete, no fail).
    assertThat(begin(CONSUMER, "m-killer", 3).kind()).isEqualTo(Kind.CLAIMED);
    advance(LEASE);
    assertThat(begin(CONSUMER, "m-killer", 3).kind()).isEqualTo(Kind.TAKEN_OVER);
    advance(LEASE);
    assertThat(begin(CONSUMER, "m-killer", 3).kind()).isEqualTo(Kind.TAKEN_OVER);
    advance(LEASE);

    Outcome outcome = c.consume(Message.of("m-killer"));
    assertThat(outcome.status()).isEqualTo(Status.DEAD);
    assertThat(outcome.attempts()).isEqualTo(3);
    assertThat(c.consume(Message.of("m-killer")).status()).isEqualTo(Status.DEAD);
    assertThat(calls).hasValue(0);
    assertThat(deadLetters).containsExactly("m-killer");
    assertThat(store().find(CONSUMER, "m-killer").orElseThrow().lastError()).isNotBlank();
  }

  @Test
  @Timeout(60)
  @DisplayName("7c. poison by crash, delivered concurrently: the dead-letter path still runs once")
  void concurrentDeliveriesOfAnExhaustedMessageDeadLetterOnce() throws Exception {
    List<String> deadLetters = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    List<InboxEvent> events = new CopyOnWriteArrayList<>();
    IdempotentConsumer c =
        IdempotentConsumer.builder(CONSUMER, store())
            .handler((message, attempt) -> calls.incrementAndGet())
            .config(config(2).build())
            .listener(events::add)
            .deadLetterHandler((message, record) -> deadLetters.add(message.id()))
            .build();
    assertThat(begin(CONSUMER, "m-crash-race", 2).kind()).isEqualTo(Kind.CLAIMED);
    advance(LEASE);
    assertThat(begin(CONSUMER, "m-crash-race", 2).kind()).isEqualTo(Kind.TAKEN_OVER);
    advance(LEASE);

    int workers = workerThreads();
    for (Outcome o : race(workers, () -> c.consume(Message.of("m-crash-race")))) {
      assertThat(o.status()).isEqualTo(Status.DEAD);
    }
    assertThat(calls).hasValue(0);
    assertThat(deadLetters).containsExactly("m-crash-race");
    assertThat(events).filteredOn(e -> e.kind() == InboxEvent.Kind.DEAD).hasSize(1);
    assertThat(events).filteredOn(e -> e.kind() == InboxEvent.Kind.DEAD_SEEN).hasSize(workers - 1);
    assertThat(store().find(CONSUMER, "m-crash-race").orElseThrow().state())
        .isEqualTo(RecordState.DEAD);
  }

  @Test
  @DisplayName("8. prune never deletes PROCESSING, DEAD or DONE records inside the window")
  void pruneRespectsStateAndWindow() {
    store().complete(begin("old-done").claim(), null);
    begin("old-processing"); // lease expires below, still never pruned
    store().markDead(begin("old-dead").claim(), "poison");
    Claim failed = begin("old-failed").claim();
    store().fail(failed, "boom", Duration.ofSeconds(5));
    advance(Duration.ofDays(2));
    Instant cutoff = store().currentTime().minus(Duration.ofDays(1));
    store().complete(begin("young-done").claim(), null);
    begin("young-processing");

    assertThat(store().prune(cutoff)).isEqualTo(1);

    assertThat(store().find(CONSUMER, "old-done")).isEmpty();
    for (String kept :
        List.of("old-processing", "old-dead", "old-failed", "young-done", "young-processing")) {
      assertThat(store().find(CONSUMER, kept)).as(kept).isPresent();
    }
    assertThat(store().prune(cutoff)).isZero();
  }
}
