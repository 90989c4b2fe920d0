package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sharp edges a first-time user met (issue 22, items 4, 5 and 8) on the memory store, whose
 * clock the tests move by hand: no test here waits for real time to pass.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FirstUserEdgesTest {

  private static final String NAME = "orders";
  private static final Duration LEASE = Duration.ofMillis(500);

  private final SettableClock clock = new SettableClock();
  private final MemoryInboxStore store = new MemoryInboxStore(clock);
  private final List<InboxEvent> events = new CopyOnWriteArrayList<>();

  private IdempotentConsumer consumer(MessageHandler handler) {
    return IdempotentConsumer.builder(NAME, store)
        .handler(handler)
        .config(
            InboxConfig.custom()
                .lease(LEASE)
                .retryPolicy(RetryPolicy.custom().maxAttempts(5).jitter(0).build())
                .build())
        .listener(events::add)
        .build();
  }

  /**
   * Event kinds by name: this file compiles against a build without the RETRY and LEASE_OVERRUN
   * kinds, so it was run there to show that it fails.
   */
  private List<String> kinds() {
    return events.stream().map(e -> e.kind().name()).toList();
  }

  // ---------------------------------------------------------------- item 4: RETRY is no takeover

  @Test
  void aDueRetryAfterAFailureIsARetryNotATakeover() {
    AtomicInteger runs = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("provider timeout");
              }
            });
    assertThat(c.consume(Message.of("m1")).status()).isEqualTo(Status.FAILED);
    clock.advance(Duration.ofSeconds(1)); // the retry time (1 s backoff) is due
    events.clear();

    Outcome retried = c.consume(Message.of("m1"));

    assertThat(retried.status()).isEqualTo(Status.APPLIED);
    assertThat(retried.attempts()).isEqualTo(2);
    assertThat(kinds()).containsExactly("RETRY", "CLAIMED", "APPLIED");
  }

  @Test
  void aRetryWhoseOwnerThenCrashedIsTakenOver() {
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              throw new IllegalStateException("provider timeout");
            });
    c.consume(Message.of("m1")); // FAILED at attempt 1, retry due in 1 s
    clock.advance(Duration.ofSeconds(1));
    BeginResult retry = store.begin(new BeginRequest(NAME, "m1", LEASE, 5, null));
    assertThat(retry.kind().name()).isEqualTo("RETRIED");
    // The retrying instance dies without recording anything; its lease runs out.
    clock.advance(LEASE);
    events.clear();

    BeginResult taken = store.begin(new BeginRequest(NAME, "m1", LEASE, 5, null));

    assertThat(taken.kind()).isEqualTo(BeginResult.Kind.TAKEN_OVER);
    assertThat(taken.record().attempts()).isEqualTo(3);
  }

  @Test
  void aCrashedFirstAttemptIsStillATakeover() {
    IdempotentConsumer c = consumer((m, a) -> {});
    store.begin(new BeginRequest(NAME, "m1", LEASE, 5, null)); // claimed, then the owner died
    clock.advance(LEASE);

    assertThat(c.consume(Message.of("m1")).status()).isEqualTo(Status.APPLIED);
    assertThat(kinds()).containsExactly("TAKEOVER", "CLAIMED", "APPLIED");
  }

  // ---------------------------------------------------------------- item 5: LEASE_OVERRUN

  @Test
  void aCompletionAfterTheLeaseEndIsReportedAsAnOverrun() {
    // The handler "runs" 1.5 s of store time under a 0.5 s lease; nobody redelivers meanwhile.
    IdempotentConsumer c = consumer((m, a) -> clock.advance(Duration.ofMillis(1500)));

    Outcome outcome = c.consume(Message.of("slow-1"));

    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    assertThat(kinds()).containsExactly("CLAIMED", "LEASE_OVERRUN", "APPLIED");
    InboxEvent overrun = events.get(1);
    assertThat(overrun.messageId()).isEqualTo("slow-1");
    assertThat(overrun.attempts()).isEqualTo(1);
  }

  @Test
  void aCompletionExactlyAtTheLeaseEndIsAnOverrunAndOneJustBeforeIsNot() {
    // begin takes a lease over when now >= leaseUntil, so the lease end itself is already lost.
    IdempotentConsumer atEnd = consumer((m, a) -> clock.set(a.leaseUntil()));
    atEnd.consume(Message.of("at-end"));
    assertThat(kinds()).contains("LEASE_OVERRUN");
    events.clear();

    IdempotentConsumer justBefore = consumer((m, a) -> clock.set(a.leaseUntil().minusNanos(1000)));
    justBefore.consume(Message.of("just-before"));
    assertThat(kinds()).containsExactly("CLAIMED", "APPLIED");
  }

  @Test
  void anExtendedLeaseIsJudgedByItsNewEnd() {
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              clock.advance(Duration.ofMillis(400));
              a.extendLease(Duration.ofSeconds(2)); // lease now ends 2.4 s after the claim
              clock.advance(Duration.ofMillis(1100));
            });

    assertThat(c.consume(Message.of("extended")).status()).isEqualTo(Status.APPLIED);
    assertThat(kinds()).doesNotContain("LEASE_OVERRUN");
  }

  @Test
  void theOverrunWarningIsLoggedOncePerConsumer() {
    // System.Logger goes to java.util.logging here (inbox-core has no logging dependency).
    Logger jul = Logger.getLogger("dev.archlab.inbox.internal.ConsumeSteps");
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            if (r.getLevel() == Level.WARNING && r.getMessage().contains("after its lease ended")) {
              warnings.add(r);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(capture);
    try {
      IdempotentConsumer first = consumer((m, a) -> clock.advance(Duration.ofSeconds(2)));
      first.consume(Message.of("o-1"));
      first.consume(Message.of("o-2"));
      IdempotentConsumer second = consumer((m, a) -> clock.advance(Duration.ofSeconds(2)));
      second.consume(Message.of("o-3"));
    } finally {
      jul.removeHandler(capture);
    }

    assertThat(kinds().stream().filter("LEASE_OVERRUN"::equals)).hasSize(3);
    assertThat(warnings).hasSize(2); // one per consumer instance, not one per message
    assertThat(warnings.get(0).getMessage()).contains("'orders'").contains("'o-1'");
  }

  // ---------------------------------------------------------------- item 8: exceptions

  @Test
  void consumeOfNullIsAnInvalidArgument() {
    IdempotentConsumer c = consumer((m, a) -> {});
    assertThatThrownBy(() -> c.consume(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("message");
  }

  @Test
  void aBuilderWithoutAStoreIsAnInvalidArgument() {
    assertThatThrownBy(() -> IdempotentConsumer.builder("x", null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("store");
  }

  @Test
  void consumeAfterCloseIsAConsumerClosedException() {
    IdempotentConsumer c = consumer((m, a) -> {});
    c.close();
    assertThatThrownBy(() -> c.consume(Message.of("m1")))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("'orders' is closed")
        .extracting(e -> e.getClass().getSimpleName())
        .isEqualTo("ConsumerClosedException");
    assertThat(store.find(NAME, "m1")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {" orders", "orders ", "\u00a0orders", "orders\u2007", "\u3000orders"})
  void aConsumerNameWithSurroundingWhitespaceIsRefused(String name) {
    assertThatThrownBy(() -> IdempotentConsumer.builder(name, store))
        .isInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("whitespace");
  }

  @Test
  void innerSpacesInAConsumerNameStayAllowed() {
    assertThat(IdempotentConsumer.builder("order events", store).handler((m, a) -> {}).build())
        .isNotNull();
  }
}
