package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.Fixtures.LEASE;
import static dev.archlab.inbox.micrometer.Fixtures.config;
import static dev.archlab.inbox.micrometer.Fixtures.consumeCount;
import static dev.archlab.inbox.micrometer.Fixtures.consumeTimer;
import static dev.archlab.inbox.micrometer.Fixtures.counter;
import static dev.archlab.inbox.micrometer.Fixtures.deliveries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.ConsumerClosedException;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.testkit.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The consume timer: one sample per delivery under the right outcome tag, with the duration the
 * injected clock measured, for returned outcomes and thrown exceptions alike.
 */
class ConsumeTimerTest {

  private final MockClock ticker = new MockClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock storeClock = new MutableClock();
  private final MemoryInboxStore store = new MemoryInboxStore(storeClock);
  private final InboxMetrics metrics = InboxMetrics.builder().clock(ticker).build();

  {
    metrics.bindTo(registry);
  }

  private IdempotentConsumer consumer(int maxAttempts, dev.archlab.inbox.MessageHandler handler) {
    return IdempotentConsumer.builder("orders", store)
        .config(config(maxAttempts))
        .listener(metrics.listener())
        .handler(handler)
        .build();
  }

  @Test
  void everyOutcomeOfTheSingleConsumerIsTimedUnderItsTag() {
    ConsumeTimer timer = metrics.timer("orders");
    IdempotentConsumer ok =
        consumer(3, (m, a) -> ticker.add(5, TimeUnit.MILLISECONDS)); // the handler takes 5 ms
    assertThat(timer.consume(Message.of("a"), ok::consume).status())
        .isEqualTo(Outcome.Status.APPLIED);
    assertThat(timer.consume(Message.of("a"), ok::consume).status())
        .isEqualTo(Outcome.Status.DUPLICATE);

    store.begin(new BeginRequest("orders", "held", LEASE, 3, null)); // another instance holds it
    assertThat(timer.consume(Message.of("held"), ok::consume).status())
        .isEqualTo(Outcome.Status.IN_FLIGHT);

    IdempotentConsumer failing =
        consumer(
            3,
            (m, a) -> {
              throw new IllegalStateException("boom");
            });
    assertThat(timer.consume(Message.of("f"), failing::consume).status())
        .isEqualTo(Outcome.Status.FAILED);
    IdempotentConsumer poison =
        consumer(
            1,
            (m, a) -> {
              throw new IllegalStateException("poison");
            });
    assertThat(timer.consume(Message.of("p"), poison::consume).status())
        .isEqualTo(Outcome.Status.DEAD);
    assertThat(timer.consume(Message.of("p"), poison::consume).status())
        .as("a later delivery of the parked message")
        .isEqualTo(Outcome.Status.DEAD);

    ok.close();
    assertThatThrownBy(() -> timer.consume(Message.of("late"), ok::consume))
        .isInstanceOf(ConsumerClosedException.class);

    assertThat(consumeCount(registry, "orders", "applied")).isEqualTo(1);
    assertThat(consumeTimer(registry, "orders", "applied").totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(5.0);
    assertThat(consumeCount(registry, "orders", "duplicate")).isEqualTo(1);
    assertThat(consumeTimer(registry, "orders", "duplicate").totalTime(TimeUnit.NANOSECONDS))
        .isZero(); // the handler did not run, and nothing else moves the mock clock
    assertThat(consumeCount(registry, "orders", "in_flight")).isEqualTo(1);
    assertThat(consumeCount(registry, "orders", "failed")).isEqualTo(1);
    assertThat(consumeCount(registry, "orders", "dead")).isEqualTo(2);
    assertThat(consumeCount(registry, "orders", "error")).isEqualTo(1);
    assertThat(consumeCount(registry, "orders", "lease_lost")).isZero();
    assertThat(counter(registry, "inbox.dead.letters", "orders")).isEqualTo(1.0);
    assertDeliveriesMatchTheTimer();
  }

  // The listener's deliveries counter sees, from events alone, every delivery the timer saw that
  // ended in an outcome (an exception the caller gets has no event: only the timer's error).
  private void assertDeliveriesMatchTheTimer() {
    for (String outcome :
        List.of("applied", "duplicate", "in_flight", "failed", "dead", "lease_lost")) {
      assertThat(deliveries(registry, "orders", outcome))
          .as(outcome)
          .isEqualTo((double) consumeCount(registry, "orders", outcome));
    }
    assertThat(registry.find("inbox.deliveries").tag("outcome", "error").counter()).isNull();
  }

  @Test
  void aTakeoverWhileTheHandlerRunsIsLeaseLostForTheLoserAndCountedAsTakeover() {
    ConsumeTimer timer = metrics.timer("orders");
    IdempotentConsumer other = consumer(3, (m, a) -> ticker.add(3, TimeUnit.MILLISECONDS));
    IdempotentConsumer slow =
        consumer(
            3,
            (m, a) -> {
              ticker.add(10, TimeUnit.MILLISECONDS);
              // The lease runs out and another instance takes the message over and applies it.
              storeClock.advance(LEASE);
              assertThat(timer.consume(m, other::consume).status())
                  .isEqualTo(Outcome.Status.APPLIED);
            });

    assertThatThrownBy(() -> timer.consume(Message.of("x"), slow::consume))
        .isInstanceOf(LeaseLostException.class);

    assertThat(consumeCount(registry, "orders", "lease_lost")).isEqualTo(1);
    assertThat(consumeTimer(registry, "orders", "lease_lost").totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(13.0); // its own 10 ms and the nested 3 ms
    assertThat(consumeCount(registry, "orders", "applied")).isEqualTo(1);
    assertThat(consumeTimer(registry, "orders", "applied").totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(3.0);
    assertThat(counter(registry, "inbox.takeovers", "orders")).isEqualTo(1.0);
  }

  @Test
  void aBatchRecordsOneSampleOfTheWholeCallPerMessageUnderItsOwnOutcome() {
    ConsumeTimer timer = metrics.timer("batch");
    Outcome applied = new Outcome(Outcome.Status.APPLIED, "a", 1, null, null, null, null);
    Outcome duplicate = new Outcome(Outcome.Status.DUPLICATE, "b", 1, null, null, null, null);
    Outcome lost =
        new Outcome(
            Outcome.Status.IN_FLIGHT,
            "c",
            1,
            Duration.ofSeconds(1),
            null,
            new LeaseLostException(
                new Claim("batch", "c", 1, Instant.EPOCH), RecordState.PROCESSING, 2),
            null);
    List<Message> messages = List.of(Message.of("a"), Message.of("b"), Message.of("c"));

    List<Outcome> outcomes =
        timer.consumeBatch(
            messages,
            ms -> {
              ticker.add(7, TimeUnit.MILLISECONDS);
              return List.of(applied, duplicate, lost);
            });

    assertThat(outcomes).containsExactly(applied, duplicate, lost);
    for (String tag : List.of("applied", "duplicate", "lease_lost")) {
      assertThat(consumeCount(registry, "batch", tag)).as(tag).isEqualTo(1);
      assertThat(consumeTimer(registry, "batch", tag).totalTime(TimeUnit.MILLISECONDS))
          .as(tag)
          .isEqualTo(7.0);
    }
    assertThat(consumeCount(registry, "batch", "in_flight")).isZero();
  }

  @Test
  void aBatchThatThrowsRecordsOneErrorPerMessageAndRethrows() {
    ConsumeTimer timer = metrics.timer("batch");
    IllegalStateException down = new IllegalStateException("down");

    assertThatThrownBy(
            () ->
                timer.consumeBatch(
                    List.of(Message.of("a"), Message.of("b")),
                    ms -> {
                      throw down;
                    }))
        .isSameAs(down);

    assertThat(consumeCount(registry, "batch", "error")).isEqualTo(2);
  }

  @Test
  void aConsumeThatReturnsNothingUsableIsAnErrorNamedAsSuch() {
    ConsumeTimer timer = metrics.timer("orders");
    assertThatThrownBy(() -> timer.consume(Message.of("a"), m -> null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("returned null");
    assertThatThrownBy(() -> timer.consumeBatch(List.of(Message.of("a")), ms -> List.of()))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("0 outcomes")
        .hasMessageContaining("for 1 messages");
    assertThat(consumeCount(registry, "orders", "error")).isEqualTo(2);
    assertThatThrownBy(() -> timer.consume(Message.of("a"), null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("consume must not be null");
    assertThat(consumeCount(registry, "orders", "error")).isEqualTo(2); // nothing was called
    assertDeliveriesMatchTheTimer();
  }

  @Test
  void tagsAreTheConsumerAndFixedValuesNeverAMessageId() {
    ConsumeTimer timer = metrics.timer("orders");
    IdempotentConsumer ok = consumer(3, (m, a) -> {});
    for (String id : List.of("id-1", "id-2", "id-3")) {
      timer.consume(Message.of(id), ok::consume);
      timer.consume(Message.of(id), ok::consume);
    }
    Set<Tag> tags =
        registry.getMeters().stream()
            .map(Meter::getId)
            .flatMap(id -> id.getTags().stream())
            .collect(Collectors.toSet());
    assertThat(tags.stream().map(Tag::getKey)).containsOnly("consumer", "outcome");
    assertThat(tags.stream().map(Tag::getValue))
        .containsOnly(
            "orders", "applied", "duplicate", "in_flight", "failed", "dead", "lease_lost", "error");
  }
}
