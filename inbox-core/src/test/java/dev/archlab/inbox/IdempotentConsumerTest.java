package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InboxEvent.Kind;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.internal.Fingerprint;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ForwardingInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class IdempotentConsumerTest {

  private static final String NAME = "billing";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final int MAX_ATTEMPTS = 3;

  private final SettableClock clock = new SettableClock();
  private final MemoryInboxStore store = new MemoryInboxStore(clock);
  private final List<InboxEvent> events = new CopyOnWriteArrayList<>();
  private final InboxListener recorder = events::add;
  private final AtomicInteger handlerRuns = new AtomicInteger();
  private final AtomicInteger deadLetters = new AtomicInteger();
  private final List<IdempotentConsumer> toClose = new ArrayList<>();

  /** 30 s lease, 3 attempts, delays 1 s, 2 s, ... without jitter. */
  private static InboxConfig.Builder config() {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(RetryPolicy.custom().maxAttempts(MAX_ATTEMPTS).jitter(0).build());
  }

  private IdempotentConsumer consumer(MessageHandler handler) {
    return consumer(handler, config().build());
  }

  private IdempotentConsumer consumer(MessageHandler handler, InboxConfig config) {
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, store)
            .handler(
                (m, a) -> {
                  handlerRuns.incrementAndGet();
                  handler.handle(m, a);
                })
            .config(config)
            .listener(recorder)
            .deadLetterHandler((m, r) -> deadLetters.incrementAndGet())
            .build();
    toClose.add(c);
    return c;
  }

  private static MessageHandler ok() {
    return (m, a) -> {};
  }

  private static MessageHandler failing() {
    return (m, a) -> {
      throw new IllegalStateException("boom");
    };
  }

  private List<Kind> kinds() {
    return events.stream().map(InboxEvent::kind).toList();
  }

  private BeginResult rivalBegin(String id) {
    return store.begin(new BeginRequest(NAME, id, LEASE, MAX_ATTEMPTS, null));
  }

  private InboxRecord record(String id) {
    return store.find(NAME, id).orElseThrow();
  }

  @BeforeEach
  void startClean() {
    events.clear();
  }

  @AfterEach
  void closeConsumers() {
    toClose.forEach(IdempotentConsumer::close);
  }

  // ---------------------------------------------------------------- events per outcome

  @Test
  void firstDeliveryIsClaimedAndApplied() {
    IdempotentConsumer c = consumer(ok());

    Outcome outcome = c.consume(Message.of("m1"));

    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(outcome.shouldAcknowledge()).isTrue();
    assertThat(handlerRuns).hasValue(1);
    assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.APPLIED);
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.consumer()).isEqualTo(NAME);
              assertThat(e.messageId()).isEqualTo("m1");
              assertThat(e.attempts()).isEqualTo(1);
              assertThat(e.error()).isNull();
            });
    assertThat(record("m1").state()).isEqualTo(RecordState.DONE);
  }

  @Test
  void redeliveryIsADuplicateAndDoesNotRunTheHandler() {
    IdempotentConsumer c = consumer(ok());
    c.consume(Message.of("m1"));
    events.clear();

    Outcome again = c.consume(Message.of("m1"));
    Outcome third = c.consume(Message.of("m1"));

    assertThat(again.status()).isEqualTo(Status.DUPLICATE);
    assertThat(third.status()).isEqualTo(Status.DUPLICATE);
    assertThat(again.shouldAcknowledge()).isTrue();
    assertThat(handlerRuns).hasValue(1);
    assertThat(kinds()).containsExactly(Kind.DUPLICATE, Kind.DUPLICATE);
  }

  @Test
  void liveLeaseOfAnotherInstanceIsInFlightWithTheRemainingLease() {
    IdempotentConsumer c = consumer(ok());
    Instant leaseUntil = rivalBegin("m1").record().leaseUntil();
    clock.advance(Duration.ofSeconds(10));

    Outcome outcome = c.consume(Message.of("m1"));

    assertThat(outcome.status()).isEqualTo(Status.IN_FLIGHT);
    assertThat(outcome.retryAfter()).isEqualTo(Duration.ofSeconds(20));
    assertThat(leaseUntil).isEqualTo(clock.instant().plus(outcome.retryAfter()));
    assertThat(outcome.shouldAcknowledge()).isFalse();
    assertThat(handlerRuns).hasValue(0);
    assertThat(kinds()).containsExactly(Kind.IN_FLIGHT);
    assertThat(record("m1").attempts()).isEqualTo(1);
  }

  @Test
  void handlerFailureIsFailedWithRetryAtStoreTimePlusBackoff() {
    RetryPolicy retry =
        RetryPolicy.custom().maxAttempts(MAX_ATTEMPTS).jitter(0.5).random(() -> 0.0).build();
    IdempotentConsumer c = consumer(failing(), config().retryPolicy(retry).build());
    Instant storeTime = clock.instant();

    Outcome outcome = c.consume(Message.of("m1"));

    // initialDelay 1 s, jitter 0.5, random 0.0 -> 500 ms.
    assertThat(outcome.status()).isEqualTo(Status.FAILED);
    assertThat(outcome.retryAfter()).isEqualTo(Duration.ofMillis(500));
    assertThat(outcome.retryAt()).isEqualTo(storeTime.plusMillis(500));
    assertThat(outcome.error()).isInstanceOf(IllegalStateException.class).hasMessage("boom");
    assertThat(outcome.shouldAcknowledge()).isFalse();
    assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.FAILED);
    assertThat(events.get(1).error()).isSameAs(outcome.error());

    InboxRecord r = record("m1");
    assertThat(r.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(r.leaseUntil()).isEqualTo(outcome.retryAt());
    assertThat(r.lastError()).isEqualTo("java.lang.IllegalStateException: boom");
  }

  @Test
  void retryBeforeItsTimeIsInFlightAndAfterItIsARetryWithGrowingBackoff() {
    IdempotentConsumer c = consumer(failing());
    Instant t0 = clock.instant();
    c.consume(Message.of("m1")); // FAILED, retry at t0 + 1 s
    events.clear();

    clock.advance(Duration.ofMillis(400));
    Outcome early = c.consume(Message.of("m1"));
    clock.advance(Duration.ofMillis(600));
    Outcome second = c.consume(Message.of("m1"));

    assertThat(early.status()).isEqualTo(Status.IN_FLIGHT);
    assertThat(early.retryAfter()).isEqualTo(Duration.ofMillis(600));
    assertThat(second.status()).isEqualTo(Status.FAILED);
    assertThat(second.attempts()).isEqualTo(2);
    assertThat(second.retryAfter()).isEqualTo(Duration.ofSeconds(2));
    assertThat(second.retryAt()).isEqualTo(t0.plusSeconds(1).plusSeconds(2));
    assertThat(handlerRuns).hasValue(2);
    assertThat(kinds()).containsExactly(Kind.IN_FLIGHT, Kind.RETRY, Kind.CLAIMED, Kind.FAILED);
  }

  @Test
  void expiredLeaseIsTakenOverWithTheNextAttemptNumber() {
    AtomicReference<Attempt> seen = new AtomicReference<>();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              seen.set(a);
              assertThat(a.number()).isEqualTo(2);
              assertThat(a.isRetry()).isTrue();
            });
    rivalBegin("m1"); // an instance that claimed and then crashed
    clock.advance(LEASE);

    Outcome outcome = c.consume(Message.of("m1"));

    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(seen.get()).isNotNull();
    assertThat(kinds()).containsExactly(Kind.TAKEOVER, Kind.CLAIMED, Kind.APPLIED);
    assertThat(events).allSatisfy(e -> assertThat(e.attempts()).isEqualTo(2));
  }

  @Test
  void attemptDescribesTheClaim() {
    List<String> seen = new ArrayList<>();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              seen.add(a.consumer());
              seen.add(a.messageId());
              seen.add(a.idempotencyKey());
              seen.add(String.valueOf(a.number()));
              seen.add(String.valueOf(a.isRetry()));
              seen.add(a.leaseUntil().toString());
            });

    c.consume(Message.of("m1"));

    assertThat(seen)
        .containsExactly(
            NAME, "m1", NAME + ":m1", "1", "false", clock.instant().plus(LEASE).toString());
  }

  @Test
  void lastFailedAttemptIsDeadAndRunsTheDeadLetterHandlerOnce() {
    AtomicReference<InboxRecord> deadRecord = new AtomicReference<>();
    AtomicReference<Message> deadMessage = new AtomicReference<>();
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, store)
            .handler(failing())
            .config(config().build())
            .listener(recorder)
            .deadLetterHandler(
                (m, r) -> {
                  deadLetters.incrementAndGet();
                  deadMessage.set(m);
                  deadRecord.set(r);
                })
            .build();
    toClose.add(c);
    Message message = Message.of("poison", "t", new byte[] {7});

    Outcome first = c.consume(message);
    clock.advance(Duration.ofSeconds(1));
    Outcome second = c.consume(message);
    clock.advance(Duration.ofSeconds(2));
    Outcome third = c.consume(message);

    assertThat(List.of(first.status(), second.status(), third.status()))
        .containsExactly(Status.FAILED, Status.FAILED, Status.DEAD);
    assertThat(third.attempts()).isEqualTo(MAX_ATTEMPTS);
    assertThat(third.error()).isInstanceOf(IllegalStateException.class);
    assertThat(third.shouldAcknowledge()).isTrue();
    assertThat(deadLetters).hasValue(1);
    assertThat(deadMessage.get()).isEqualTo(message);
    assertThat(deadRecord.get().state()).isEqualTo(RecordState.DEAD);
    assertThat(record("poison").state()).isEqualTo(RecordState.DEAD);
    assertThat(record("poison").lastError()).contains("boom");
    assertThat(kinds()).endsWith(Kind.CLAIMED, Kind.DEAD);
    assertThat(events.get(events.size() - 1).error()).isInstanceOf(IllegalStateException.class);

    // Later deliveries report DEAD without running anything.
    events.clear();
    clock.advance(Duration.ofDays(1));
    Outcome later = c.consume(message);

    assertThat(later.status()).isEqualTo(Status.DEAD);
    assertThat(deadLetters).hasValue(1);
    // Both DEAD outcomes carry the error the record keeps, though only the first has the throwable:
    // an adapter that dead-letters on a redelivery reports the real failure.
    assertThat(third.lastError()).isEqualTo(record("poison").lastError()).contains("boom");
    assertThat(later.error()).isNull();
    assertThat(later.lastError()).isEqualTo(record("poison").lastError());
    assertThat(later.attempts()).isEqualTo(MAX_ATTEMPTS);
    // Metrics still see the delivery of a parked message, apart from the one DEAD per message.
    assertThat(kinds()).containsExactly(Kind.DEAD_SEEN);
    InboxEvent seen = events.get(0);
    assertThat(seen.messageId()).isEqualTo("poison");
    assertThat(seen.attempts()).isEqualTo(MAX_ATTEMPTS);
    assertThat(seen.error()).isNull();
  }

  @Test
  void deadLetterHandlerThatThrowsLeavesTheRecordDeadAndTheOutcomeDead() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, store)
            .handler(failing())
            .config(config().retryPolicy(RetryPolicy.custom().maxAttempts(1).build()).build())
            .deadLetterHandler(
                (m, r) -> {
                  calls.incrementAndGet();
                  throw new Exception("dead-letter queue is down");
                })
            .build();
    toClose.add(c);

    Outcome outcome = c.consume(Message.of("m1"));
    Outcome later = c.consume(Message.of("m1"));

    assertThat(outcome.status()).isEqualTo(Status.DEAD);
    assertThat(later.status()).isEqualTo(Status.DEAD);
    assertThat(calls).hasValue(1);
    assertThat(record("m1").state()).isEqualTo(RecordState.DEAD);
  }

  @Test
  void crashLoopReachesDeadAtMaxAttemptsAndRunsTheDeadLetterHandlerOnce() {
    IdempotentConsumer c = consumer(ok());
    assertThat(rivalBegin("crash").kind()).isEqualTo(BeginResult.Kind.CLAIMED);
    for (int attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      clock.advance(LEASE);
      BeginResult r = rivalBegin("crash"); // claims, then "crashes": never completes
      assertThat(r.kind()).isEqualTo(BeginResult.Kind.TAKEN_OVER);
      assertThat(r.record().attempts()).isEqualTo(attempt);
    }
    clock.advance(LEASE);

    Outcome outcome = c.consume(Message.of("crash"));

    assertThat(outcome.status()).isEqualTo(Status.DEAD);
    assertThat(outcome.attempts()).isEqualTo(MAX_ATTEMPTS);
    assertThat(handlerRuns).hasValue(0);
    assertThat(deadLetters).hasValue(1);
    assertThat(kinds()).containsExactly(Kind.DEAD);
    InboxRecord dead = record("crash");
    assertThat(dead.state()).isEqualTo(RecordState.DEAD);
    assertThat(dead.attempts()).isEqualTo(MAX_ATTEMPTS);
    assertThat(dead.lastError()).contains("lease expired");

    clock.advance(LEASE);
    events.clear();
    assertThat(c.consume(Message.of("crash")).status()).isEqualTo(Status.DEAD);
    assertThat(c.consume(Message.of("crash")).status()).isEqualTo(Status.DEAD);
    assertThat(deadLetters).hasValue(1);
    assertThat(handlerRuns).hasValue(0);
    assertThat(kinds()).containsExactly(Kind.DEAD_SEEN, Kind.DEAD_SEEN);
  }

  @Test
  void aFailedDoneWriteAfterTheHandlerReturnedIsReportedAsCompletionFailed() {
    StoreUnavailableException down =
        new StoreUnavailableException("database down", new java.io.IOException("reset"));
    InboxStore failingCompletion =
        new ForwardingInboxStore(store) {
          @Override
          public InboxRecord complete(Claim claim, byte[] result) {
            throw down;
          }
        };
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, failingCompletion)
            .handler((m, a) -> handlerRuns.incrementAndGet())
            .config(config().build())
            .listener(recorder)
            .build();
    toClose.add(c);

    assertThatThrownBy(() -> c.consume(Message.of("m1"))).isSameAs(down);

    assertThat(handlerRuns).hasValue(1);
    assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.COMPLETION_FAILED);
    InboxEvent failed = events.get(1);
    assertThat(failed.error()).isSameAs(down);
    assertThat(failed.messageId()).isEqualTo("m1");
    assertThat(failed.attempts()).isEqualTo(1);
    // Not a handler failure: the claim is left to expire, and the rerun is a takeover.
    InboxRecord r = record("m1");
    assertThat(r.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(r.lastError()).isNull();
    assertThat(r.leaseUntil()).isEqualTo(clock.instant().plus(LEASE));
  }

  @Test
  void eventsAreTimeStampedByAnInstantSource() {
    Instant fixed = Instant.parse("2030-01-02T03:04:05Z");
    java.time.InstantSource source = () -> fixed;
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, store)
            .handler(ok())
            .listener(recorder)
            .clock(source)
            .build();
    toClose.add(c);

    c.consume(Message.of("m1"));

    assertThat(events).isNotEmpty().allSatisfy(e -> assertThat(e.at()).isEqualTo(fixed));
    // A Clock still selects the Clock overload, unchanged for existing callers.
    assertThatCode(() -> IdempotentConsumer.builder(NAME, store).clock(clock))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> IdempotentConsumer.builder(NAME, store).clock((java.time.Clock) null))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(
            () -> IdempotentConsumer.builder(NAME, store).clock((java.time.InstantSource) null))
        .isInstanceOf(InvalidArgumentException.class);
  }

  @Test
  void beginRequestRefusesOutOfRangeValuesWithInvalidArgument() {
    assertThatThrownBy(() -> new BeginRequest(NAME, "m1", Duration.ZERO, 3, null))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> new BeginRequest(NAME, "m1", LEASE, 0, null))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> new Claim(NAME, "m1", 0, clock.instant()))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    // Ids, names and settings have their own types, all of them refused arguments.
    assertThat(new InvalidMessageIdException("x")).isInstanceOf(InvalidArgumentException.class);
    assertThat(new InvalidConsumerNameException("x")).isInstanceOf(InvalidArgumentException.class);
    assertThat(new InvalidConfigurationException("x")).isInstanceOf(InvalidArgumentException.class);
  }

  @Test
  void takenOverOwnerGetsLeaseLostAndTheRivalsRecordStands() {
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              clock.advance(LEASE); // the handler outlives its lease ...
              assertThat(rivalBegin(m.id()).kind()).isEqualTo(BeginResult.Kind.TAKEN_OVER);
            });

    assertThatThrownBy(() -> c.consume(Message.of("m1")))
        .isInstanceOf(LeaseLostException.class)
        .satisfies(
            e -> {
              LeaseLostException lost = (LeaseLostException) e;
              assertThat(lost.claim().fencingToken()).isEqualTo(1);
              assertThat(lost.currentAttempts()).isEqualTo(2);
              assertThat(lost.currentState()).isEqualTo(RecordState.PROCESSING);
            });

    assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.LEASE_LOST);
    assertThat(events.get(1).error()).isInstanceOf(LeaseLostException.class);
    InboxRecord r = record("m1");
    assertThat(r.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(r.attempts()).isEqualTo(2);
  }

  @Test
  void pruneExpiredEmitsPrunedWithTheCount() {
    IdempotentConsumer c = consumer(ok());
    c.consume(Message.of("m1"));
    c.consume(Message.of("m2"));
    clock.advance(Duration.ofDays(8));
    events.clear();

    long deleted = c.pruneExpired();

    assertThat(deleted).isEqualTo(2);
    assertThat(events).hasSize(1);
    InboxEvent pruned = events.get(0);
    assertThat(pruned.kind()).isEqualTo(Kind.PRUNED);
    assertThat(pruned.count()).isEqualTo(2);
    assertThat(pruned.consumer()).isEqualTo(NAME);
    assertThat(pruned.messageId()).isNull();
  }

  // ---------------------------------------------------------------- listener

  @Test
  void listenerThatThrowsDoesNotChangeAnyOutcome() {
    List<Kind> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean fail = new AtomicBoolean(true);
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, store)
            .handler(
                (m, a) -> {
                  if (m.id().startsWith("bad")) {
                    throw new IllegalStateException("boom");
                  }
                  a.extendLease(LEASE);
                })
            .config(
                config().retryPolicy(RetryPolicy.custom().maxAttempts(2).jitter(0).build()).build())
            .listener(
                e -> {
                  seen.add(e.kind());
                  if (fail.get()) {
                    throw new IllegalStateException("listener is broken");
                  }
                })
            .build();
    toClose.add(c);

    assertThat(c.consume(Message.of("ok")).status()).isEqualTo(Status.APPLIED);
    assertThat(c.consume(Message.of("ok")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(c.consume(Message.of("bad")).status()).isEqualTo(Status.FAILED);
    assertThat(c.consume(Message.of("bad")).status()).isEqualTo(Status.IN_FLIGHT);
    clock.advance(Duration.ofSeconds(1));
    assertThat(c.consume(Message.of("bad")).status()).isEqualTo(Status.DEAD);
    clock.advance(Duration.ofDays(8));
    assertThat(c.pruneExpired()).isEqualTo(1);

    assertThat(seen)
        .containsExactly(
            Kind.CLAIMED,
            Kind.LEASE_EXTENDED,
            Kind.APPLIED,
            Kind.DUPLICATE,
            Kind.CLAIMED,
            Kind.FAILED,
            Kind.IN_FLIGHT,
            Kind.RETRY,
            Kind.CLAIMED,
            Kind.DEAD,
            Kind.PRUNED);
  }

  // ---------------------------------------------------------------- payload fingerprint

  @Test
  void fingerprintRefusesTheSameIdWithAnotherPayloadWithoutRunningOrChanging() {
    IdempotentConsumer c = consumer(ok(), config().fingerprintPayloads(true).build());
    c.consume(Message.of("m1", "t", bytes("amount=10")));
    InboxRecord before = record("m1");
    clock.advance(Duration.ofMinutes(1));

    assertThatThrownBy(() -> c.consume(Message.of("m1", "t", bytes("amount=99"))))
        .isInstanceOf(PayloadMismatchException.class)
        .hasMessageContaining("'m1'")
        .hasMessageContaining("'" + NAME + "'")
        .satisfies(
            e -> {
              assertThat(((PayloadMismatchException) e).messageId()).isEqualTo("m1");
              assertThat(((PayloadMismatchException) e).consumer()).isEqualTo(NAME);
            });

    assertThat(handlerRuns).hasValue(1);
    assertThat(record("m1")).isEqualTo(before);
    assertThat(before.payloadHash()).isEqualTo(Fingerprint.sha256Hex(bytes("amount=10")));
    assertThat(c.consume(Message.of("m1", "t", bytes("amount=10"))).status())
        .isEqualTo(Status.DUPLICATE);
  }

  @Test
  void fingerprintRefusesAnotherPayloadWhileTheFirstIsInFlight() {
    IdempotentConsumer c = consumer(ok(), config().fingerprintPayloads(true).build());
    store.begin(
        new BeginRequest(
            NAME, "m1", LEASE, MAX_ATTEMPTS, Fingerprint.sha256Hex(bytes("amount=10"))));
    InboxRecord before = record("m1");

    assertThatThrownBy(() -> c.consume(Message.of("m1", "t", bytes("amount=99"))))
        .isInstanceOf(PayloadMismatchException.class);

    assertThat(handlerRuns).hasValue(0);
    assertThat(record("m1")).isEqualTo(before);
    assertThat(c.consume(Message.of("m1", "t", bytes("amount=10"))).status())
        .isEqualTo(Status.IN_FLIGHT);
  }

  @Test
  void withoutFingerprintAnotherPayloadIsJustADuplicate() {
    IdempotentConsumer c = consumer(ok());
    c.consume(Message.of("m1", "t", bytes("amount=10")));

    Outcome other = c.consume(Message.of("m1", "t", bytes("amount=99")));

    assertThat(other.status()).isEqualTo(Status.DUPLICATE);
    assertThat(handlerRuns).hasValue(1);
    assertThat(record("m1").payloadHash()).isNull();
  }

  // ---------------------------------------------------------------- stored result

  @Test
  void keptResultIsReturnedToDuplicates() {
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              byte[] receipt = bytes("receipt-42");
              a.keepResult(receipt);
              receipt[0] = 'X'; // the kept result is a copy
            });

    Outcome applied = c.consume(Message.of("m1"));
    Outcome duplicate = c.consume(Message.of("m1"));

    assertThat(applied.result())
        .hasValueSatisfying(r -> assertThat(r).isEqualTo(bytes("receipt-42")));
    assertThat(duplicate.status()).isEqualTo(Status.DUPLICATE);
    assertThat(duplicate.result())
        .hasValueSatisfying(r -> assertThat(r).isEqualTo(bytes("receipt-42")));
    // Callers cannot change the stored result through the outcome.
    duplicate.result().orElseThrow()[0] = 'Y';
    assertThat(c.consume(Message.of("m1")).result().orElseThrow()).isEqualTo(bytes("receipt-42"));
  }

  @Test
  void noKeptResultMeansAnEmptyResult() {
    IdempotentConsumer c = consumer(ok());
    c.consume(Message.of("m1"));

    assertThat(c.consume(Message.of("m1")).result()).isEmpty();
  }

  @Test
  void keepResultRefusesMoreThan64KiB() {
    AtomicReference<Throwable> refused = new AtomicReference<>();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              try {
                a.keepResult(new byte[InboxRecord.MAX_RESULT_BYTES + 1]);
              } catch (InvalidArgumentException e) {
                refused.set(e);
              }
              a.keepResult(new byte[InboxRecord.MAX_RESULT_BYTES]);
            });

    Outcome outcome = c.consume(Message.of("m1"));

    assertThat(InboxRecord.MAX_RESULT_BYTES).isEqualTo(64 * 1024);
    assertThat(refused.get())
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("65537")
        .hasMessageContaining("65536");
    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(outcome.result()).hasValueSatisfying(r -> assertThat(r).hasSize(65536));
  }

  // ---------------------------------------------------------------- lease extension

  @Test
  void extendLeaseMovesTheRecordsLeaseInTheStoreClock() {
    AtomicReference<Instant> returned = new AtomicReference<>();
    AtomicReference<Instant> stored = new AtomicReference<>();
    AtomicReference<Instant> attemptSees = new AtomicReference<>();
    AtomicReference<BeginResult> rival = new AtomicReference<>();
    Instant t0 = clock.instant();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              clock.advance(Duration.ofSeconds(10));
              returned.set(a.extendLease(Duration.ofMinutes(5)));
              stored.set(record(m.id()).leaseUntil());
              attemptSees.set(a.leaseUntil());
              clock.advance(Duration.ofMinutes(1)); // past the original lease, inside the new one
              rival.set(rivalBegin(m.id()));
            });

    Outcome outcome = c.consume(Message.of("m1"));

    Instant expected = t0.plusSeconds(10).plus(Duration.ofMinutes(5));
    assertThat(returned.get()).isEqualTo(expected);
    assertThat(stored.get()).isEqualTo(expected);
    assertThat(attemptSees.get()).isEqualTo(expected);
    assertThat(rival.get().kind()).isEqualTo(BeginResult.Kind.IN_FLIGHT);
    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.LEASE_EXTENDED, Kind.APPLIED);
  }

  @Test
  // A hang guard only: every wait below ends as soon as the event it waits for has happened.
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void heartbeatKeepsARealShortLeaseAndStopsWhenTheHandlerReturns() throws Exception {
    // The real heartbeat thread renews; the store's clock is the test's. The test moves the clock
    // only after it has seen a renewal made at the clock's current time, and by less than the
    // lease, so the lease cannot run out between renewals however slowly any thread runs.
    Duration lease = Duration.ofSeconds(3);
    Duration step = Duration.ofSeconds(2);
    BlockingQueue<Claim> renewals = new LinkedBlockingQueue<>();
    AtomicInteger extendCalls = new AtomicInteger();
    InboxStore watched =
        new ForwardingInboxStore(store) {
          @Override
          public Claim extend(Claim claim, Duration extension) {
            extendCalls.incrementAndGet();
            Claim extended = super.extend(claim, extension);
            renewals.add(extended);
            return extended;
          }
        };
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch releaseHandler = new CountDownLatch(1);
    AtomicReference<Instant> firstLeaseEnd = new AtomicReference<>();
    AtomicInteger runs = new AtomicInteger();
    List<InboxEvent> seen = new CopyOnWriteArrayList<>();
    InboxConfig cfg =
        InboxConfig.custom().lease(lease).heartbeatInterval(Duration.ofMillis(100)).build();
    ExecutorService owner = Executors.newSingleThreadExecutor();
    try (IdempotentConsumer c =
        IdempotentConsumer.builder("hb", watched)
            .config(cfg)
            .listener(seen::add)
            .handler(
                (m, a) -> {
                  runs.incrementAndGet();
                  firstLeaseEnd.set(a.leaseUntil());
                  started.countDown();
                  releaseHandler.await();
                })
            .build()) {
      Future<Outcome> running = owner.submit(() -> c.consume(Message.of("slow")));
      assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(firstLeaseEnd.get()).isEqualTo(SettableClock.START.plus(lease));

      // Twice: move the clock by less than the lease still granted, then wait for a renewal made
      // at the new time. The second move passes the lease end the claim began with.
      Instant leaseEnd = firstLeaseEnd.get();
      for (int i = 0; i < 2; i++) {
        clock.advance(step);
        assertThat(clock.instant()).isBefore(leaseEnd);
        Instant renewedTo = awaitRenewalAtOrAfter(renewals, clock.instant().plus(lease));
        assertThat(renewedTo).as("renewal %d moved the lease end", i + 1).isAfter(leaseEnd);
        leaseEnd = renewedTo;
      }
      assertThat(clock.instant()).isAfter(firstLeaseEnd.get());
      assertThat(store.find("hb", "slow").orElseThrow().leaseUntil()).isAfterOrEqualTo(leaseEnd);

      Outcome probe = c.consume(Message.of("slow"));
      assertThat(probe.status())
          .as("a probe after the original lease ended, the handler still running")
          .isEqualTo(Status.IN_FLIGHT);

      releaseHandler.countDown();
      Outcome outcome = running.get(60, TimeUnit.SECONDS);
      assertThat(outcome.status()).isEqualTo(Status.APPLIED);
      assertThat(outcome.attempts()).isEqualTo(1);
      assertThat(runs).hasValue(1);

      // Heartbeat stopped. At most one tick may have passed its "still running?" check before the
      // handler returned and reach the store afterwards (refused: the record is DONE); no new tick
      // starts. An absence check: a slow machine can only make it miss a late tick, never fail it.
      int callsAtReturn = extendCalls.get();
      Thread.sleep(300);
      assertThat(extendCalls.get() - callsAtReturn)
          .as("extend calls after the handler returned")
          .isLessThanOrEqualTo(1);
      assertThat(seen).extracting(InboxEvent::kind).doesNotContain(Kind.LEASE_LOST, Kind.TAKEOVER);
      InboxRecord done = store.find("hb", "slow").orElseThrow();
      assertThat(done.state()).isEqualTo(RecordState.DONE);
      assertThat(done.attempts()).isEqualTo(1);
    } finally {
      owner.shutdownNow();
    }
  }

  /**
   * Waits (a 60 s backstop) for a renewal whose lease end is at least {@code atLeast}, skipping
   * renewals made before the clock last moved; returns that lease end.
   */
  private static Instant awaitRenewalAtOrAfter(BlockingQueue<Claim> renewals, Instant atLeast)
      throws InterruptedException {
    while (true) {
      Claim renewed = renewals.poll(60, TimeUnit.SECONDS);
      assertThat(renewed).as("a renewal to at least %s", atLeast).isNotNull();
      if (!renewed.leaseUntil().isBefore(atLeast)) {
        return renewed.leaseUntil();
      }
    }
  }

  @Test
  void aHeartbeatTickInFlightWhenTheHandlerThrowsCannotOverwriteTheRetryTime() throws Exception {
    CountDownLatch tickInStore = new CountDownLatch(1);
    CountDownLatch releaseTick = new CountDownLatch(1);
    CountDownLatch tickDone = new CountDownLatch(1);
    CountDownLatch handlerThrowing = new CountDownLatch(1);
    AtomicBoolean firstTick = new AtomicBoolean(true);
    AtomicReference<Thread> worker = new AtomicReference<>();
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(1, r -> new Thread(r, "test-heartbeat"));
    InboxStore blockingTicks =
        new ForwardingInboxStore(store) {
          @Override
          public Claim extend(Claim claim, Duration lease) {
            if (!Thread.currentThread().getName().equals("test-heartbeat")
                || !firstTick.compareAndSet(true, false)) {
              return super.extend(claim, lease);
            }
            // This tick has passed its "finished?" check; park it before its store write.
            tickInStore.countDown();
            try {
              assertThat(releaseTick.await(5, TimeUnit.SECONDS)).isTrue();
              return super.extend(claim, lease);
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            } finally {
              tickDone.countDown();
            }
          }
        };
    ExecutorService owner = Executors.newSingleThreadExecutor();
    try (IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, blockingTicks)
            .handler(
                (m, a) -> {
                  worker.set(Thread.currentThread());
                  assertThat(tickInStore.await(5, TimeUnit.SECONDS)).isTrue();
                  handlerThrowing.countDown();
                  throw new IllegalStateException("boom");
                })
            .config(config().heartbeatInterval(Duration.ofMillis(5)).build())
            .listener(recorder)
            .heartbeatScheduler(scheduler)
            .build()) {
      Instant t0 = clock.instant(); // the store's clock stands still
      Future<Outcome> consuming = owner.submit(() -> c.consume(Message.of("m1")));
      assertThat(handlerThrowing.await(5, TimeUnit.SECONDS)).isTrue();
      // Release the tick once the worker has either recorded the failure (the race) or parked
      // waiting for the tick (the fix): both are reached only after the handler threw.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!consuming.isDone()
          && worker.get().getState() != Thread.State.TIMED_WAITING
          && worker.get().getState() != Thread.State.WAITING
          && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      releaseTick.countDown();
      Outcome outcome = consuming.get(5, TimeUnit.SECONDS);
      assertThat(tickDone.await(5, TimeUnit.SECONDS)).isTrue();

      // initialDelay 1 s, no jitter: the retry is due at t0 + 1 s, not at t0 + lease.
      Instant retryAt = t0.plusSeconds(1);
      assertThat(outcome.status()).isEqualTo(Status.FAILED);
      assertThat(outcome.retryAt()).isEqualTo(retryAt);
      assertThat(record("m1").state()).isEqualTo(RecordState.PROCESSING);
      assertThat(record("m1").leaseUntil()).isEqualTo(retryAt);
      assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.LEASE_EXTENDED, Kind.FAILED);
      clock.advance(Duration.ofSeconds(1));
      assertThat(rivalBegin("m1").kind()).isEqualTo(BeginResult.Kind.RETRIED);
    } finally {
      releaseTick.countDown();
      owner.shutdownNow();
      scheduler.shutdownNow();
    }
  }

  @Test
  void noHeartbeatTickStartsAfterTheHandlerFailed() throws Exception {
    AtomicInteger extendsAfterFailure = new AtomicInteger();
    AtomicBoolean failed = new AtomicBoolean();
    CountDownLatch renewed = new CountDownLatch(1);
    InboxStore counting =
        new ForwardingInboxStore(store) {
          @Override
          public Claim extend(Claim claim, Duration lease) {
            if (failed.get()) {
              extendsAfterFailure.incrementAndGet();
            }
            return super.extend(claim, lease);
          }

          @Override
          public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
            failed.set(true);
            return super.fail(claim, error, retryDelay);
          }
        };
    try (IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, counting)
            .handler(
                (m, a) -> {
                  assertThat(renewed.await(5, TimeUnit.SECONDS)).isTrue();
                  throw new IllegalStateException("boom");
                })
            .config(config().heartbeatInterval(Duration.ofMillis(1)).build())
            .listener(
                e -> {
                  if (e.kind() == Kind.LEASE_EXTENDED) {
                    renewed.countDown();
                  }
                })
            .build()) {
      Outcome outcome = c.consume(Message.of("m1"));
      Thread.sleep(50); // fifty heartbeat periods

      assertThat(outcome.status()).isEqualTo(Status.FAILED);
      assertThat(extendsAfterFailure).hasValue(0);
      assertThat(record("m1").leaseUntil()).isEqualTo(outcome.retryAt());
    }
  }

  @Test
  void defaultHeartbeatRenewsAtAThirdOfTheLease() throws Exception {
    Duration lease = Duration.ofMillis(600);
    MemoryInboxStore realTime = new MemoryInboxStore();
    CountDownLatch renewed = new CountDownLatch(1);
    List<InboxEvent> seen = new CopyOnWriteArrayList<>();
    AtomicReference<Instant> claimedUntil = new AtomicReference<>();
    AtomicReference<Instant> storedAfterRenewal = new AtomicReference<>();
    AtomicReference<Instant> attemptAfterRenewal = new AtomicReference<>();
    InboxConfig cfg = InboxConfig.custom().lease(lease).heartbeat().build();
    assertThat(cfg.heartbeatInterval()).contains(Duration.ofMillis(200));
    try (IdempotentConsumer c =
        IdempotentConsumer.builder("hb-third", realTime)
            .config(cfg)
            .listener(
                e -> {
                  seen.add(e);
                  if (e.kind() == Kind.LEASE_EXTENDED) {
                    renewed.countDown();
                  }
                })
            .handler(
                (m, a) -> {
                  claimedUntil.set(a.leaseUntil());
                  assertThat(renewed.await(5, TimeUnit.SECONDS)).as("renewed").isTrue();
                  storedAfterRenewal.set(
                      realTime.find("hb-third", m.id()).orElseThrow().leaseUntil());
                  attemptAfterRenewal.set(a.leaseUntil());
                })
            .build()) {
      Outcome outcome = c.consume(Message.of("slow"));

      assertThat(outcome.status()).isEqualTo(Status.APPLIED);
      assertThat(storedAfterRenewal.get()).isAfter(claimedUntil.get());
      assertThat(attemptAfterRenewal.get()).isAfter(claimedUntil.get());
      assertThat(seen)
          .extracting(InboxEvent::kind)
          .startsWith(Kind.CLAIMED, Kind.LEASE_EXTENDED)
          .doesNotContain(Kind.LEASE_LOST);
    }
  }

  @Test
  void extendLeaseRefusesANonPositiveLeaseWithoutTouchingTheStore() {
    List<Throwable> refused = new ArrayList<>();
    AtomicReference<InboxRecord> during = new AtomicReference<>();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              InboxRecord before = record(m.id());
              for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-1))) {
                try {
                  a.extendLease(bad);
                } catch (InvalidArgumentException e) {
                  refused.add(e);
                }
              }
              during.set(record(m.id()));
              assertThat(during.get()).isEqualTo(before);
            });

    Outcome outcome = c.consume(Message.of("m1"));

    assertThat(refused)
        .hasSize(2)
        .allSatisfy(e -> assertThat(e).hasMessageContaining("lease must be positive"));
    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(kinds()).containsExactly(Kind.CLAIMED, Kind.APPLIED);
  }

  // ---------------------------------------------------------------- build, prune, close

  @Test
  void buildWithoutHandlerIsRefused() {
    assertThatThrownBy(() -> IdempotentConsumer.builder(NAME, store).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining(NAME)
        .hasMessageContaining("handler");
  }

  @Test
  void builderRefusesMissingStore() {
    assertThatThrownBy(() -> IdempotentConsumer.builder(NAME, null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("store");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "\t", "bad\u0000name", "bad\nname", "half\uD83D"})
  void builderRefusesIllegalConsumerNames(String name) {
    assertThatThrownBy(() -> IdempotentConsumer.builder(name, store))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessageStartingWith("invalid consumer name ");
  }

  @Test
  void builderRefusesNullAndOverlongConsumerNames() {
    assertThatThrownBy(() -> IdempotentConsumer.builder(null, store))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("must not be null");
    assertThatThrownBy(() -> IdempotentConsumer.builder("c".repeat(129), store))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("is 129 characters long, the limit is 128");
  }

  @ParameterizedTest
  @ValueSource(strings = {"orders-v2", "订单服务", "pay\uD83D\uDCB0", "'; drop table x; --"})
  void builderAcceptsLegalConsumerNamesUnchanged(String name) {
    try (IdempotentConsumer c = IdempotentConsumer.builder(name, store).handler(ok()).build()) {
      assertThat(c.name()).isEqualTo(name);
      assertThat(c.consume(Message.of("m1")).status()).isEqualTo(Status.APPLIED);
    }
    assertThat(store.find(name, "m1")).isPresent();
  }

  @Test
  void builderAcceptsAConsumerNameOfExactly128Chars() {
    String name = "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    assertThat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH).isEqualTo(128);

    try (IdempotentConsumer c = IdempotentConsumer.builder(name, store).handler(ok()).build()) {
      assertThat(c.name()).isEqualTo(name);
      assertThat(c.consume(Message.of("m1")).status()).isEqualTo(Status.APPLIED);
    }
  }

  @Test
  void theSameIdForTwoConsumersIsTwoRecords() {
    IdempotentConsumer billing = consumer(ok());
    IdempotentConsumer shipping =
        IdempotentConsumer.builder("shipping", store).handler(ok()).build();
    toClose.add(shipping);

    assertThat(billing.consume(Message.of("m1")).status()).isEqualTo(Status.APPLIED);
    assertThat(shipping.consume(Message.of("m1")).status()).isEqualTo(Status.APPLIED);
    assertThat(shipping.consume(Message.of("m1")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(store.size()).isEqualTo(2);
  }

  @Test
  void pruneExpiredDeletesOnlyThisConsumersDoneRecordsOlderThanRetention() {
    Duration retention = DedupWindow.DEFAULT.retention();
    IdempotentConsumer mine = consumer(ok());
    IdempotentConsumer other = IdempotentConsumer.builder("other", store).handler(ok()).build();
    toClose.add(other);
    mine.consume(Message.of("old")); // DONE at t0
    other.consume(Message.of("old")); // another consumer's DONE at t0
    rivalBegin("processing"); // PROCESSING since t0, never touched by prune
    clock.advance(Duration.ofSeconds(1));
    mine.consume(Message.of("edge")); // DONE at t0 + 1 s: exactly at the cut-off below
    clock.advance(retention);
    mine.consume(Message.of("fresh")); // DONE now

    long deleted = mine.pruneExpired();

    assertThat(deleted).isEqualTo(1);
    assertThat(store.find(NAME, "old")).isEmpty();
    assertThat(store.find(NAME, "edge")).isPresent();
    assertThat(store.find(NAME, "fresh")).isPresent();
    assertThat(store.find(NAME, "processing")).isPresent();
    assertThat(store.find("other", "old")).isPresent();

    // The designed edge of the window: after pruning, the same id applies again.
    assertThat(mine.consume(Message.of("old")).status()).isEqualTo(Status.APPLIED);
    assertThat(other.consume(Message.of("old")).status()).isEqualTo(Status.DUPLICATE);
  }

  @Test
  void closeIsSafeToCallTwice() {
    IdempotentConsumer plain = consumer(ok());
    IdempotentConsumer beating =
        consumer(ok(), config().heartbeatInterval(Duration.ofSeconds(1)).build());
    beating.consume(Message.of("m1"));

    assertThatCode(
            () -> {
              plain.close();
              plain.close();
              beating.close();
              beating.close();
            })
        .doesNotThrowAnyException();
  }

  @Test
  void closeStopsTheHeartbeatThreadItCreated() throws Exception {
    String name = "hb-close-" + System.nanoTime();
    String threadName = "inbox-heartbeat-" + name;
    IdempotentConsumer c =
        IdempotentConsumer.builder(name, store)
            .handler(ok())
            .config(config().heartbeatInterval(Duration.ofSeconds(1)).build())
            .build();
    toClose.add(c);
    c.consume(Message.of("m1"));
    assertThat(heartbeatThreadAlive(threadName)).as("heartbeat thread before close").isTrue();

    c.close();

    // Backstop only: the thread ends as soon as its pool shuts down; 60 s just ends a hang.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (heartbeatThreadAlive(threadName) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(heartbeatThreadAlive(threadName)).as("heartbeat thread after close").isFalse();
  }

  @Test
  void closeLeavesAGivenSchedulerRunning() {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    try {
      IdempotentConsumer c =
          IdempotentConsumer.builder(NAME, store)
              .handler(ok())
              .config(config().heartbeatInterval(Duration.ofSeconds(1)).build())
              .heartbeatScheduler(scheduler)
              .build();
      assertThat(c.consume(Message.of("m1")).status()).isEqualTo(Status.APPLIED);

      c.close();
      c.close();

      assertThat(scheduler.isShutdown()).isFalse();
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static boolean heartbeatThreadAlive(String threadName) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void consumeAfterCloseIsRefusedWithoutClaiming() {
    IdempotentConsumer c =
        IdempotentConsumer.builder(NAME, store)
            .handler((m, a) -> handlerRuns.incrementAndGet())
            .config(InboxConfig.custom().lease(LEASE).heartbeat().build())
            .build();
    c.close();
    assertThatThrownBy(() -> c.consume(Message.of("after-close")))
        .isInstanceOf(ConsumerClosedException.class)
        .hasMessageContaining("closed");
    assertThat(store.find(NAME, "after-close")).isEmpty();
    assertThat(handlerRuns).hasValue(0);
  }
}
