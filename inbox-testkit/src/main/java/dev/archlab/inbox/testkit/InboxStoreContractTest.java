package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link InboxStore} must show, written once against the store SPI and the
 * consumer API: the eight scenarios of the specification plus fencing, lease extension, payload
 * fingerprints, stored results, bad input and a concurrency stress test.
 *
 * <p>To test a store, subclass this class in the store's test sources and return a fresh, empty
 * store from {@link #newFixture()}. Time moves only through {@link StoreFixture#advanceTime}, so
 * the scenarios are deterministic on any store; stores that read a real clock (a database's {@code
 * now()}) stay correct because every lease here is many seconds long.
 */
public abstract class InboxStoreContractTest {

  /** The consumer name most scenarios use. */
  protected static final String CONSUMER = "notifier";

  /** A short lease; time moves only when a test advances it. */
  protected static final Duration LEASE = Duration.ofSeconds(30);

  private StoreFixture fixture;

  /**
   * A fresh, empty store. Called before every test; closed after it.
   *
   * @return a new fixture whose store holds no records
   * @throws Exception if the store could not be set up; the test fails with it
   */
  protected abstract StoreFixture newFixture() throws Exception;

  /**
   * Distinct ids in the stress test; a slow store may lower it.
   *
   * @return the id count, 2000 by default
   */
  protected int stressMessageCount() {
    return 2_000;
  }

  /**
   * Worker threads in the concurrency tests; a pooled store should have at least this many.
   *
   * @return the thread count, 8 by default
   */
  protected int workerThreads() {
    return 8;
  }

  @BeforeEach
  void openFixture() throws Exception {
    fixture = newFixture();
  }

  @AfterEach
  void closeFixture() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  /**
   * The store of the current test's fixture.
   *
   * @return the store under test
   */
  protected final InboxStore store() {
    return fixture.store();
  }

  /**
   * Moves the store's clock forward through the fixture.
   *
   * @param duration how far to move
   */
  protected final void advance(Duration duration) {
    fixture.advanceTime(duration);
  }

  /**
   * A consumer on the fixture's store with a deterministic retry policy (1 s, 2 s, 4 s ...).
   *
   * @param name the consumer name
   * @param handler the business effect
   * @return a builder with {@link #config config(5)} set, ready to build or adjust
   */
  protected final IdempotentConsumer.Builder consumer(String name, MessageHandler handler) {
    return IdempotentConsumer.builder(name, store()).handler(handler).config(config(5).build());
  }

  /**
   * Settings with the {@link #LEASE} and a jitter-free retry policy: 1 s after the first failure,
   * doubling, at most 1 min.
   *
   * @param maxAttempts attempts before a message is parked as DEAD
   * @return a builder with those settings
   */
  protected static InboxConfig.Builder config(int maxAttempts) {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(maxAttempts)
                .initialDelay(Duration.ofSeconds(1))
                .multiplier(2)
                .maxDelay(Duration.ofMinutes(1))
                .jitter(0)
                .build());
  }

  /**
   * Begins message {@code id} for {@link #CONSUMER} with 5 attempts, the {@link #LEASE} and no
   * payload hash.
   *
   * @param id the message id
   * @return the store's decision
   */
  protected final BeginResult begin(String id) {
    return begin(CONSUMER, id, 5);
  }

  /**
   * Begins message {@code id} for {@code consumer} with the {@link #LEASE} and no payload hash.
   *
   * @param consumer the consumer name
   * @param id the message id
   * @param maxAttempts the attempt limit of a takeover
   * @return the store's decision
   */
  protected final BeginResult begin(String consumer, String id, int maxAttempts) {
    return store().begin(new BeginRequest(consumer, id, LEASE, maxAttempts, null));
  }

  private static MessageHandler counting(AtomicInteger calls) {
    return (message, attempt) -> calls.incrementAndGet();
  }

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

  // ---- beyond the eight scenarios ------------------------------------------------------------

  @Test
  @DisplayName("prune of one consumer leaves the other consumers' records alone")
  void prunePerConsumer() {
    store().complete(begin("billing", "m-1", 5).claim(), null);
    store().complete(begin("shipping", "m-1", 5).claim(), null);
    advance(Duration.ofHours(2));
    assertThat(store().prune("billing", store().currentTime())).isEqualTo(1);
    assertThat(store().find("billing", "m-1")).isEmpty();
    assertThat(store().find("shipping", "m-1")).isPresent();
  }

  @Test
  @DisplayName("the same message id for two consumers is two independent records")
  void consumersAreIndependent() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer billing = consumer("billing", counting(calls)).build();
    IdempotentConsumer shipping = consumer("shipping", counting(calls)).build();
    assertThat(billing.consume(Message.of("evt-7")).status()).isEqualTo(Status.APPLIED);
    assertThat(shipping.consume(Message.of("evt-7")).status()).isEqualTo(Status.APPLIED);
    assertThat(billing.consume(Message.of("evt-7")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(calls).hasValue(2);
  }

  @Test
  @DisplayName("extend pushes the lease out: no takeover while extended, takeover after")
  void leaseExtension() {
    Claim claim = begin("m-long").claim();
    advance(LEASE.minusSeconds(5));
    Claim extended = store().extend(claim, LEASE);
    assertThat(extended.fencingToken()).isEqualTo(claim.fencingToken());
    assertThat(extended.leaseUntil()).isAfter(claim.leaseUntil());
    advance(Duration.ofSeconds(10)); // past the original lease, inside the extension
    assertThat(begin("m-long").kind()).isEqualTo(Kind.IN_FLIGHT);
    advance(LEASE);
    BeginResult takeover = begin("m-long");
    assertThat(takeover.kind()).isEqualTo(Kind.TAKEN_OVER);
    assertThatThrownBy(() -> store().extend(extended, LEASE))
        .isInstanceOf(LeaseLostException.class);
  }

  @Test
  @DisplayName("a handler that extends its own lease keeps its claim")
  void handlerExtendsItsLease() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer other = consumer(CONSUMER, counting(calls)).build();
    IdempotentConsumer slow =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  for (int i = 0; i < 3; i++) {
                    advance(LEASE.minusSeconds(5));
                    attempt.extendLease(LEASE);
                    assertThat(other.consume(message).status()).isEqualTo(Status.IN_FLIGHT);
                  }
                })
            .build();
    assertThat(slow.consume(Message.of("m-slow")).status()).isEqualTo(Status.APPLIED);
    assertThat(calls).hasValue(0);
  }

  @Test
  @DisplayName("fenced operations on a record that does not exist are unknown claims")
  void unknownClaims() {
    Claim ghost = new Claim(CONSUMER, "never-begun", 1, store().currentTime().plus(LEASE));
    assertThatThrownBy(() -> store().complete(ghost, null))
        .isInstanceOf(UnknownClaimException.class)
        .hasMessageContaining("never-begun");
    assertThatThrownBy(() -> store().fail(ghost, "x", Duration.ZERO))
        .isInstanceOf(UnknownClaimException.class);
    assertThatThrownBy(() -> store().extend(ghost, LEASE))
        .isInstanceOf(UnknownClaimException.class);
    assertThatThrownBy(() -> store().markDead(ghost, "x"))
        .isInstanceOf(UnknownClaimException.class);
    assertThat(store().find(CONSUMER, "never-begun")).isEmpty();

    Claim real = begin("m-real").claim();
    Claim forged = new Claim(CONSUMER, "m-real", 7, real.leaseUntil());
    assertThatThrownBy(() -> store().complete(forged, null))
        .isInstanceOf(UnknownClaimException.class);
    assertThat(store().find(CONSUMER, "m-real").orElseThrow().state())
        .isEqualTo(RecordState.PROCESSING);
  }

  @Test
  @DisplayName("same id with another payload is refused, never applied; the record is unchanged")
  void payloadMismatchIsRefused() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder(CONSUMER, store())
            .handler(counting(calls))
            .config(config(5).fingerprintPayloads(true).build())
            .build();
    byte[] original = "{\"amount\":10}".getBytes(StandardCharsets.UTF_8);
    byte[] altered = "{\"amount\":99}".getBytes(StandardCharsets.UTF_8);
    assertThat(c.consume(Message.of("m-pay", "payments", original)).status())
        .isEqualTo(Status.APPLIED);
    InboxRecord before = store().find(CONSUMER, "m-pay").orElseThrow();
    assertThat(before.payloadHash()).hasSize(64);

    assertThatThrownBy(() -> c.consume(Message.of("m-pay", "payments", altered)))
        .isInstanceOf(PayloadMismatchException.class)
        .hasMessageContaining("m-pay");
    assertThat(store().find(CONSUMER, "m-pay")).contains(before);
    assertThat(c.consume(Message.of("m-pay", "payments", original)).status())
        .isEqualTo(Status.DUPLICATE);
    assertThat(calls).hasValue(1);

    // A mismatch on an in-flight record is refused too, and does not disturb the owner.
    BeginResult owner =
        store().begin(new BeginRequest(CONSUMER, "m-pay-2", LEASE, 5, "a".repeat(64)));
    assertThatThrownBy(
            () -> store().begin(new BeginRequest(CONSUMER, "m-pay-2", LEASE, 5, "b".repeat(64))))
        .isInstanceOf(PayloadMismatchException.class);
    store().complete(owner.claim(), null);
  }

  @Test
  @DisplayName("a duplicate gets the first run's stored result back")
  void storedResultAnswersDuplicates() {
    AtomicInteger calls = new AtomicInteger();
    byte[] receipt = "receipt-42".getBytes(StandardCharsets.UTF_8);
    IdempotentConsumer c =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  calls.incrementAndGet();
                  attempt.keepResult(receipt);
                })
            .build();
    Outcome applied = c.consume(Message.of("m-result"));
    Outcome duplicate = c.consume(Message.of("m-result"));
    assertThat(applied.result()).hasValueSatisfying(r -> assertThat(r).isEqualTo(receipt));
    assertThat(duplicate.status()).isEqualTo(Status.DUPLICATE);
    assertThat(duplicate.result()).hasValueSatisfying(r -> assertThat(r).isEqualTo(receipt));
    assertThat(calls).hasValue(1);

    // Binary results survive byte for byte.
    byte[] binary = new byte[256];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) i;
    }
    store().complete(begin("m-binary").claim(), binary);
    assertThat(store().find(CONSUMER, "m-binary").orElseThrow().result()).isEqualTo(binary);
  }

  @Test
  @DisplayName("a long error text is bounded, not refused")
  void longErrorsAreBounded() {
    Claim claim = begin("m-error").claim();
    String huge = "é".repeat(InboxRecord.MAX_ERROR_LENGTH * 3);
    store().fail(claim, huge, Duration.ofSeconds(1));
    assertThat(store().find(CONSUMER, "m-error").orElseThrow().lastError())
        .hasSizeLessThanOrEqualTo(InboxRecord.MAX_ERROR_LENGTH)
        .startsWith("éééé");
  }

  @Test
  @DisplayName("bad ids and consumer names are refused with specific errors; nothing changes")
  void badInputIsRefused() {
    store().complete(begin("keep-me").claim(), null);
    InboxRecord kept = store().find(CONSUMER, "keep-me").orElseThrow();
    List<String> badIds =
        Arrays.asList(
            null,
            "",
            "   ",
            "x".repeat(Message.MAX_ID_LENGTH + 1),
            "nul\0byte",
            "lone\uD800surrogate");
    for (String id : badIds) {
      assertThatThrownBy(() -> begin(id))
          .as(String.valueOf(id))
          .isInstanceOf(InvalidMessageIdException.class);
      assertThatThrownBy(() -> store().find(CONSUMER, id))
          .as(String.valueOf(id))
          .isInstanceOf(InvalidMessageIdException.class);
    }
    List<String> badNames =
        Arrays.asList(null, "", "\t", "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH + 1));
    for (String name : badNames) {
      assertThatThrownBy(() -> begin(name, "m-1", 5))
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> store().prune(name, store().currentTime()))
          .isInstanceOf(InvalidConsumerNameException.class);
    }
    assertThat(store().find(CONSUMER, "keep-me")).contains(kept);
    assertThat(store().list(RecordState.PROCESSING, null, 10)).isEmpty();
  }

  /**
   * Records in every state a refusal could disturb: PROCESSING (a live claim), PROCESSING after a
   * failure (with lastError and a retry time), DONE with a kept binary result and a payload hash,
   * and DEAD with lastError, under two consumers. Returned as read back from the store.
   */
  private List<InboxRecord> seedRecordsOfEveryState() {
    store().begin(new BeginRequest(CONSUMER, "keep-processing", LEASE, 5, "c".repeat(64)));
    store().fail(begin("keep-failed").claim(), "timeout talking to 'x'", Duration.ofSeconds(9));
    byte[] result = {0, 1, (byte) 0xFF, (byte) 0x80, '\'', '%'};
    store()
        .complete(
            store()
                .begin(new BeginRequest(CONSUMER, "keep-done", LEASE, 5, "d".repeat(64)))
                .claim(),
            result);
    store().markDead(begin("keep-dead").claim(), "poison: unparseable \u00e9 body");
    store().complete(begin("billing", "keep-done", 5).claim(), null);
    List<InboxRecord> seeded = new ArrayList<>();
    for (String[] key :
        new String[][] {
          {CONSUMER, "keep-processing"},
          {CONSUMER, "keep-failed"},
          {CONSUMER, "keep-done"},
          {CONSUMER, "keep-dead"},
          {"billing", "keep-done"}
        }) {
      seeded.add(store().find(key[0], key[1]).orElseThrow());
    }
    assertThat(seeded)
        .extracting(InboxRecord::state)
        .containsExactly(
            RecordState.PROCESSING,
            RecordState.PROCESSING,
            RecordState.DONE,
            RecordState.DEAD,
            RecordState.DONE);
    assertThat(seeded.get(2).result()).isEqualTo(result);
    assertThat(seeded.get(3).lastError()).contains("poison");
    return seeded;
  }

  /** Every seeded record reads back equal (all fields, result bytes included); nothing else. */
  private void assertUntouched(List<InboxRecord> seeded, String after) {
    for (InboxRecord r : seeded) {
      assertThat(store().find(r.consumer(), r.messageId()))
          .as("%s/%s after %s", r.consumer(), r.messageId(), after)
          .contains(r);
    }
    int processing = store().list(RecordState.PROCESSING, null, 100).size();
    int done = store().list(RecordState.DONE, null, 100).size();
    int dead = store().list(RecordState.DEAD, null, 100).size();
    assertThat(new int[] {processing, done, dead})
        .as("record counts after %s", after)
        .containsExactly(2, 2, 1);
  }

  /**
   * Ids that must be refused, each with a description for assertion messages.
   *
   * @return description to id, in a stable order; one id is null
   */
  protected static Map<String, String> invalidIds() {
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put("null", null);
    bad.put("empty", "");
    bad.put("spaces", "   ");
    bad.put("tabs and newlines", "\t\r\n");
    bad.put("no-break spaces", "\u00A0\u2007\u202F");
    bad.put("ideographic and em spaces", "\u3000\u2003");
    bad.put("256 chars", "x".repeat(Message.MAX_ID_LENGTH + 1));
    bad.put("10 KB", "k".repeat(10 * 1024));
    bad.put("NUL", "nul\0byte");
    bad.put("trailing NUL", "m-1\0");
    bad.put("control char", "bell\u0007");
    bad.put("DEL", "del\u007F");
    bad.put("C1 control", "c1\u0085");
    bad.put("lone high surrogate", "lone\uD800surrogate");
    bad.put("lone low surrogate", "lone\uDC00");
    bad.put("reversed pair", "\uDE00\uD83D");
    bad.put("high surrogate at end", "end\uD83D");
    return bad;
  }

  /**
   * Ids that look dangerous or unusual but are valid and must round-trip exactly.
   *
   * @return the ids
   */
  protected static List<String> unusualValidIds() {
    return List.of(
        "'; DROP TABLE inbox; --",
        "' OR '1'='1",
        "\"quoted\" `backticked` [bracketed]",
        "back\\slash\\\\double",
        "100%_match_%_",
        "%",
        "_",
        "*?$1;:/#&=+",
        "emoji-\uD83D\uDE00\uD83D\uDC4D\uD83C\uDFFD",
        "订单-2026-10-17",
        "注文・주문・заказ",
        "שלום-עולם-\u200F-مرحبا",
        "e\u0301-combining",
        " leading and trailing spaces ",
        "PAD-upper",
        "pad-upper",
        "\u00A0x\u00A0",
        "x".repeat(Message.MAX_ID_LENGTH),
        "\uD83D\uDE00".repeat(Message.MAX_ID_LENGTH / 2),
        "中".repeat(Message.MAX_ID_LENGTH));
  }

  @Test
  @DisplayName("bad ids are refused at every entry point; records of every state are untouched")
  void badIdsAreRefusedEverywhere() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Instant leaseEnd = store().currentTime().plus(LEASE);
    for (Map.Entry<String, String> e : invalidIds().entrySet()) {
      String what = e.getKey();
      String id = e.getValue();
      assertThatThrownBy(() -> begin(id)).as(what).isInstanceOf(InvalidMessageIdException.class);
      assertThatThrownBy(() -> Message.of(id))
          .as(what)
          .isInstanceOf(InvalidMessageIdException.class);
      assertThatThrownBy(() -> store().find(CONSUMER, id))
          .as(what)
          .isInstanceOf(InvalidMessageIdException.class);
      // A claim cannot even be constructed with a bad id, so no fenced op can receive one.
      assertThatThrownBy(() -> new Claim(CONSUMER, id, 1, leaseEnd))
          .as(what)
          .isInstanceOf(InvalidMessageIdException.class);
      assertUntouched(seeded, what);
    }
    // The refusal message says why, and stays printable and short even for a 10 KB id.
    assertThatThrownBy(() -> begin("k".repeat(10 * 1024)))
        .hasMessageContaining("limit is " + Message.MAX_ID_LENGTH)
        .satisfies(t -> assertThat(t.getMessage()).hasSizeLessThan(300));
    assertThatThrownBy(() -> begin("nul\0byte")).hasMessageContaining("U+0000");
    assertThatThrownBy(() -> begin("lone\uD800")).hasMessageContaining("surrogate");
    assertThatThrownBy(() -> begin("\u00A0\u00A0")).hasMessageContaining("blank");
  }

  @Test
  @DisplayName("bad consumer names are refused at every entry point; records are untouched")
  void badConsumerNamesAreRefusedEverywhere() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Instant leaseEnd = store().currentTime().plus(LEASE);
    Instant now = store().currentTime();
    Map<String, String> bad = new java.util.LinkedHashMap<>(invalidIds());
    bad.remove("256 chars");
    bad.put("129 chars", "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH + 1));
    for (Map.Entry<String, String> e : bad.entrySet()) {
      String what = e.getKey();
      String name = e.getValue();
      assertThatThrownBy(() -> begin(name, "keep-done", 5))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> store().find(name, "keep-done"))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      if (name != null) {
        // null means "every consumer" for list; any other bad name is refused.
        assertThatThrownBy(() -> store().list(RecordState.DONE, name, 10))
            .as(what)
            .isInstanceOf(InvalidConsumerNameException.class);
      }
      assertThatThrownBy(() -> store().prune(name, now.plus(Duration.ofDays(365))))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> new Claim(name, "keep-processing", 1, leaseEnd))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> IdempotentConsumer.builder(name, store()))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertUntouched(seeded, what);
    }
    assertThatThrownBy(() -> begin("c".repeat(129), "m", 5))
        .hasMessageContaining("limit is " + IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
  }

  @Test
  @DisplayName("fenced ops with forged claims (wrong token, other consumer) change nothing")
  void forgedClaimsChangeNothing() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Instant leaseEnd = store().currentTime().plus(LEASE);
    List<Claim> forged =
        List.of(
            new Claim(CONSUMER, "keep-processing", 2, leaseEnd), // a token never issued
            new Claim(CONSUMER, "keep-processing", Integer.MAX_VALUE, leaseEnd),
            new Claim("billing", "keep-processing", 1, leaseEnd), // no such key
            new Claim(CONSUMER, "keep-done", 1, leaseEnd), // terminal
            new Claim(CONSUMER, "keep-dead", 1, leaseEnd),
            new Claim(CONSUMER, "'; DELETE FROM inbox; --", 1, leaseEnd));
    for (Claim claim : forged) {
      String what = claim.toString();
      List<Runnable> ops =
          List.of(
              () -> store().complete(claim, new byte[] {1}),
              () -> store().fail(claim, "forged", Duration.ofSeconds(1)),
              () -> store().extend(claim, LEASE),
              () -> store().markDead(claim, "forged"));
      for (Runnable op : ops) {
        assertThatThrownBy(op::run)
            .as(what)
            .isInstanceOfAny(UnknownClaimException.class, LeaseLostException.class);
      }
      assertUntouched(seeded, what);
    }
    assertThatThrownBy(() -> new Claim(CONSUMER, "keep-processing", 0, leaseEnd))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> new Claim(CONSUMER, "keep-processing", 1, null))
        .isInstanceOf(NullPointerException.class);
    assertUntouched(seeded, "claims with a bad token or lease");
  }

  @Test
  @DisplayName("out-of-range arguments are refused before anything changes")
  void outOfRangeArgumentsAreRefused() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Claim live = seeded.get(0).toClaim();
    Map<String, Runnable> refused = new java.util.LinkedHashMap<>();
    refused.put("extend by zero", () -> store().extend(live, Duration.ZERO));
    refused.put("extend by a negative lease", () -> store().extend(live, Duration.ofSeconds(-1)));
    refused.put(
        "fail with a negative delay", () -> store().fail(live, "x", Duration.ofSeconds(-1)));
    refused.put(
        "complete with a result over the limit",
        () -> store().complete(live, new byte[InboxRecord.MAX_RESULT_BYTES + 1]));
    refused.put("list with a negative limit", () -> store().list(RecordState.DONE, null, -1));
    for (Map.Entry<String, Runnable> e : refused.entrySet()) {
      // Every refused value is an InvalidArgumentException, from the core types and stores alike.
      assertThatThrownBy(e.getValue()::run)
          .as(e.getKey())
          .isInstanceOf(InvalidArgumentException.class);
      assertUntouched(seeded, e.getKey());
    }
    // Values checked by the core types themselves are always InvalidArgumentException.
    assertThatThrownBy(() -> new BeginRequest(CONSUMER, "m-bad", Duration.ZERO, 5, null))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> new BeginRequest(CONSUMER, "m-bad", LEASE, 0, null))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    assertUntouched(seeded, "bad begin requests");

    // And through the consumer API, where the handler sees the refusal and can carry on.
    List<Throwable> seen = new CopyOnWriteArrayList<>();
    IdempotentConsumer c =
        consumer(
                "refusals",
                (message, attempt) -> {
                  for (Runnable bad :
                      List.<Runnable>of(
                          () -> attempt.extendLease(Duration.ZERO),
                          () -> attempt.extendLease(Duration.ofSeconds(-1)),
                          () -> attempt.keepResult(new byte[InboxRecord.MAX_RESULT_BYTES + 1]))) {
                    try {
                      bad.run();
                    } catch (RuntimeException e) {
                      seen.add(e);
                    }
                  }
                })
            .build();
    assertThat(c.consume(Message.of("m-refusals")).status()).isEqualTo(Status.APPLIED);
    assertThat(seen)
        .hasSize(3)
        .allSatisfy(t -> assertThat(t).isExactlyInstanceOf(InvalidArgumentException.class));
    assertThat(store().find("refusals", "m-refusals").orElseThrow().result()).isNull();
  }

  @Test
  @DisplayName("a payload mismatch is refused for DONE, DEAD and PROCESSING; records untouched")
  void payloadMismatchLeavesEveryRecordAlone() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    for (String id : List.of("keep-processing", "keep-done")) {
      assertThatThrownBy(
              () -> store().begin(new BeginRequest(CONSUMER, id, LEASE, 5, "e".repeat(64))))
          .as(id)
          .isInstanceOf(PayloadMismatchException.class)
          .hasMessageContaining(id);
      assertUntouched(seeded, "payload mismatch on " + id);
    }
    // No hash recorded, or none given: there is nothing to compare, so no mismatch.
    assertThat(begin("keep-done").kind()).isEqualTo(Kind.DUPLICATE);
    assertThat(
            store().begin(new BeginRequest(CONSUMER, "keep-dead", LEASE, 5, "e".repeat(64))).kind())
        .isEqualTo(Kind.DEAD);
    assertUntouched(seeded, "begins without a mismatch");
  }

  @Test
  @DisplayName("unusual but valid ids round-trip exactly, for begin, find, list and consume")
  void unusualValidIdsRoundTrip() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    String consumer = "unusual";
    List<String> ids = unusualValidIds();
    for (String id : ids) {
      BeginResult first = begin(consumer, id, 5);
      assertThat(first.kind()).as(id).isEqualTo(Kind.CLAIMED);
      assertThat(first.record().messageId()).as(id).isEqualTo(id);
      store().complete(first.claim(), id.getBytes(StandardCharsets.UTF_8));
    }
    for (String id : ids) {
      InboxRecord r = store().find(consumer, id).orElseThrow();
      assertThat(r.messageId()).as(id).isEqualTo(id);
      assertThat(r.result()).as(id).isEqualTo(id.getBytes(StandardCharsets.UTF_8));
      assertThat(begin(consumer, id, 5).kind()).as(id).isEqualTo(Kind.DUPLICATE);
    }
    // No two ids collapsed into one row (by collation, trimming or normalisation).
    assertThat(store().list(RecordState.DONE, consumer, 100))
        .extracting(InboxRecord::messageId)
        .containsExactlyInAnyOrderElementsOf(ids);
    // Ids that differ only in what a lax store might ignore are distinct keys.
    for (String near :
        List.of(
            "' or '1'='1",
            "%_match_%_",
            "leading and trailing spaces",
            "é-combining",
            "x".repeat(Message.MAX_ID_LENGTH - 1))) {
      assertThat(store().find(consumer, near)).as(near).isEmpty();
    }
    // Through the consumer API too: the handler sees the exact id, once.
    List<String> seen = new CopyOnWriteArrayList<>();
    IdempotentConsumer c = consumer("unusual-api", (m, a) -> seen.add(m.id())).build();
    for (String id : ids) {
      assertThat(c.consume(Message.of(id)).status()).as(id).isEqualTo(Status.APPLIED);
      assertThat(c.consume(Message.of(id)).status()).as(id).isEqualTo(Status.DUPLICATE);
    }
    assertThat(seen).containsExactlyElementsOf(ids);
    for (InboxRecord r : seeded) {
      assertThat(store().find(r.consumer(), r.messageId())).contains(r);
    }
  }

  @Test
  @DisplayName("ids differing only by trailing spaces are distinct keys; padded names are refused")
  void trailingSpacesAreSignificant() {
    // A PAD SPACE collation (MySQL/MariaDB utf8mb4_bin) compares 'pad' and 'pad ' as equal, which
    // would report a different message as a DUPLICATE of another and silently drop its effect.
    List<String> ids = List.of("pad", "pad ", "pad  ", "pad\u00A0");
    for (String id : ids) {
      BeginResult first = begin(id);
      assertThat(first.kind()).as("'%s'", id).isEqualTo(Kind.CLAIMED);
      store().complete(first.claim(), id.getBytes(StandardCharsets.UTF_8));
    }
    for (String id : ids) {
      assertThat(store().find(CONSUMER, id).orElseThrow().result())
          .as("'%s'", id)
          .isEqualTo(id.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(store().list(RecordState.DONE, CONSUMER, 10)).hasSize(ids.size());
    // A consumer name is typed by people: " billing" or "billing " would silently be a second
    // consumer, so every store refuses surrounding whitespace instead of storing it.
    store().complete(begin("billing", "m-1", 5).claim(), null);
    assertThatThrownBy(() -> begin("billing ", "m-1", 5))
        .isInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("whitespace");
    assertThatThrownBy(() -> store().find(" billing", "m-1"))
        .isInstanceOf(InvalidConsumerNameException.class);
  }

  @Test
  @DisplayName("unusual but valid consumer names are independent keys, stored verbatim")
  void unusualValidConsumerNames() {
    List<String> names =
        List.of(
            "'; DROP TABLE inbox; --",
            "100%_",
            "%",
            "billing\\eu",
            "计费-服务",
            "émoji-\uD83D\uDE00",
            "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH));
    for (String name : names) {
      store().complete(begin(name, "m-shared", 5).claim(), null);
    }
    for (String name : names) {
      assertThat(store().find(name, "m-shared").orElseThrow().consumer()).as(name).isEqualTo(name);
      assertThat(begin(name, "m-shared", 5).kind()).as(name).isEqualTo(Kind.DUPLICATE);
      assertThat(store().list(RecordState.DONE, name, 10)).as(name).hasSize(1);
    }
    // A LIKE-style wildcard in a name must not match other consumers when pruning.
    advance(Duration.ofHours(1));
    assertThat(store().prune("%", store().currentTime())).isEqualTo(1);
    assertThat(store().find("100%_", "m-shared")).isPresent();
    assertThat(store().find(names.get(0), "m-shared")).isPresent();
  }

  @Test
  @DisplayName("ids with SQL meta-characters and unicode are stored and found verbatim")
  void unusualButValidIds() {
    List<String> ids =
        List.of(
            "'; DROP TABLE inbox; --",
            "a\"b\\c%_*?",
            "订单-2026-10-17",
            "emoji-\uD83D\uDE00",
            "x".repeat(Message.MAX_ID_LENGTH));
    for (String id : ids) {
      store().complete(begin(id).claim(), null);
    }
    for (String id : ids) {
      assertThat(store().find(CONSUMER, id))
          .as(id)
          .get()
          .extracting(InboxRecord::messageId)
          .isEqualTo(id);
      assertThat(begin(id).kind()).as(id).isEqualTo(Kind.DUPLICATE);
    }
    assertThat(store().list(RecordState.DONE, CONSUMER, 100)).hasSize(ids.size());
  }

  @Test
  @DisplayName("list filters by state and consumer, oldest first, up to the limit")
  void listByState() {
    begin("p-1");
    advance(Duration.ofSeconds(1));
    begin("billing", "p-2", 5);
    advance(Duration.ofSeconds(1));
    begin("p-3");
    store().complete(begin("d-1").claim(), null);

    assertThat(store().list(RecordState.PROCESSING, null, 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("p-1", "p-2", "p-3");
    assertThat(store().list(RecordState.PROCESSING, CONSUMER, 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("p-1", "p-3");
    assertThat(store().list(RecordState.PROCESSING, null, 2)).hasSize(2);
    assertThat(store().list(RecordState.DONE, null, 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("d-1");
    assertThat(store().list(RecordState.DEAD, null, 10)).isEmpty();
  }

  @Test
  @DisplayName("records carry their timestamps in the store's clock")
  void recordTimestamps() {
    Instant before = store().currentTime();
    BeginResult begun = begin("m-ts");
    InboxRecord r = begun.record();
    assertThat(r.createdAt()).isAfterOrEqualTo(before.minusSeconds(1));
    assertThat(r.updatedAt()).isEqualTo(r.createdAt());
    assertThat(r.leaseUntil()).isAfterOrEqualTo(r.createdAt().plus(LEASE).minusSeconds(1));
    assertThat(store().find(CONSUMER, "m-ts")).contains(r);
    advance(Duration.ofSeconds(3));
    // A store may move time by shifting stored timestamps: read them back after the move.
    InboxRecord moved = store().find(CONSUMER, "m-ts").orElseThrow();
    InboxRecord done = store().complete(begun.claim(), null);
    assertThat(done.leaseUntil()).isNull();
    assertThat(done.createdAt()).isEqualTo(moved.createdAt());
    assertThat(done.updatedAt()).isAfterOrEqualTo(moved.updatedAt().plusSeconds(3));
    assertThat(store().find(CONSUMER, "m-ts")).contains(done);
  }

  // ---- concurrency -----------------------------------------------------------------------------

  @Test
  @Timeout(60)
  @DisplayName("N concurrent begins for one key: exactly one is claimed")
  void concurrentBeginsClaimOnce() throws Exception {
    for (int round = 0; round < 20; round++) {
      String id = "race-" + round;
      int claimed = 0;
      for (BeginResult r : race(workerThreads(), () -> begin(id))) {
        if (r.claimed()) {
          claimed++;
        } else {
          assertThat(r.kind()).isEqualTo(Kind.IN_FLIGHT);
        }
      }
      assertThat(claimed).as("claims for %s", id).isEqualTo(1);
    }
  }

  /**
   * Runs {@code task} on {@code workers} threads released at the same moment and returns their
   * results in submission order, each waited for at most 30 s.
   *
   * @param <T> the task's result type
   * @param workers how many threads run the task
   * @param task what each thread runs
   * @return the results, one per worker, in submission order
   * @throws Exception if a task threw (wrapped in an {@link
   *     java.util.concurrent.ExecutionException}) or did not finish within 30 s ({@link
   *     java.util.concurrent.TimeoutException})
   */
  protected static <T> List<T> race(int workers, Callable<T> task) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return task.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(30, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Timeout(120)
  @DisplayName("stress: thousands of ids, many duplicates each, many threads; one effect per id")
  void concurrentStress() throws Exception {
    int ids = stressMessageCount();
    int copies = 5;
    List<String> deliveries = new ArrayList<>(ids * copies);
    for (int i = 0; i < ids; i++) {
      for (int c = 0; c < copies; c++) {
        deliveries.add("stress-" + i);
      }
    }
    Collections.shuffle(deliveries, new Random(42));
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    Map<Status, AtomicInteger> statuses = new ConcurrentHashMap<>();
    IdempotentConsumer c =
        consumer(
                CONSUMER,
                (message, attempt) ->
                    effects
                        .computeIfAbsent(message.id(), k -> new AtomicInteger())
                        .incrementAndGet())
            .build();
    int workers = workerThreads();
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        futures.add(
            pool.submit(
                () -> {
                  String id;
                  while ((id = queue.poll()) != null) {
                    Outcome o = c.consume(Message.of(id));
                    statuses
                        .computeIfAbsent(o.status(), k -> new AtomicInteger())
                        .incrementAndGet();
                    if (o.status() == Status.IN_FLIGHT) {
                      queue.add(id); // the broker redelivers later
                      Thread.onSpinWait();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(110, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(effects).hasSize(ids);
    assertThat(effects.values()).allMatch(n -> n.get() == 1, "every id applied exactly once");
    assertThat(statuses.get(Status.APPLIED)).hasValue(ids);
    assertThat(statuses.get(Status.DUPLICATE).get()).isEqualTo(ids * (copies - 1));
    assertThat(store().list(RecordState.DONE, CONSUMER, ids + 10)).hasSize(ids);
    assertThat(store().list(RecordState.PROCESSING, CONSUMER, 10)).isEmpty();
  }
}
