package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.Fixtures.BACKOFF;
import static dev.archlab.inbox.micrometer.Fixtures.LEASE;
import static dev.archlab.inbox.micrometer.Fixtures.RETENTION;
import static dev.archlab.inbox.micrometer.Fixtures.config;
import static dev.archlab.inbox.micrometer.Fixtures.consumeCount;
import static dev.archlab.inbox.micrometer.Fixtures.counter;
import static dev.archlab.inbox.micrometer.Fixtures.deliveries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.ForwardingInboxStore;
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The listener's counters, each driven by a real consumer on the memory store. */
class EventCountersTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock storeClock = new MutableClock();
  private final MemoryInboxStore memory = new MemoryInboxStore(storeClock);
  private final InboxMetrics metrics = InboxMetrics.builder().build();

  {
    metrics.bindTo(registry);
  }

  private IdempotentConsumer consumer(InboxStore store, MessageHandler handler) {
    return IdempotentConsumer.builder("orders", store)
        .config(config(3))
        .listener(metrics.listener())
        .handler(handler)
        .build();
  }

  @Test
  void namedConsumersShowEveryMeterAtZeroBeforeAnyEvent() {
    SimpleMeterRegistry fresh = new SimpleMeterRegistry();
    InboxMetrics.builder().consumers("payments").build().bindTo(fresh);

    for (String name :
        List.of(
            "inbox.takeovers",
            "inbox.retries",
            "inbox.completion.failures",
            "inbox.dead.letters",
            "inbox.lease.overruns",
            "inbox.prunes",
            "inbox.pruned.records")) {
      assertThat(counter(fresh, name, "payments")).as(name).isZero();
    }
    assertThat(consumeCount(fresh, "payments", "duplicate")).isZero();
    for (String outcome :
        List.of("applied", "duplicate", "in_flight", "failed", "dead", "lease_lost")) {
      assertThat(deliveries(fresh, "payments", outcome)).as(outcome).isZero();
    }
  }

  @Test
  void aDueRetryIsCountedAsRetryNotTakeover() {
    AtomicBoolean failOnce = new AtomicBoolean(true);
    IdempotentConsumer c =
        consumer(
            memory,
            (m, a) -> {
              if (failOnce.getAndSet(false)) {
                throw new IllegalStateException("first attempt fails");
              }
            });
    assertThat(c.consume(Message.of("m")).status()).isEqualTo(Outcome.Status.FAILED);
    storeClock.advance(BACKOFF);

    assertThat(c.consume(Message.of("m")).status()).isEqualTo(Outcome.Status.APPLIED);

    assertThat(counter(registry, "inbox.retries", "orders")).isEqualTo(1.0);
    assertThat(counter(registry, "inbox.takeovers", "orders")).isZero();
  }

  @Test
  void aDoneThatCannotBeRecordedIsACompletionFailure() {
    InboxStore failingComplete = new CompleteFails(memory);
    IdempotentConsumer c = consumer(failingComplete, (m, a) -> {});
    ConsumeTimer timer = metrics.timer("orders");

    assertThatThrownBy(() -> timer.consume(Message.of("m"), c::consume))
        .isInstanceOf(StoreUnavailableException.class);

    assertThat(counter(registry, "inbox.completion.failures", "orders")).isEqualTo(1.0);
    assertThat(consumeCount(registry, "orders", "error")).isEqualTo(1);
  }

  @Test
  void aCompletionAfterTheLeaseEndIsALeaseOverrun() {
    IdempotentConsumer c = consumer(memory, (m, a) -> storeClock.advance(LEASE));

    assertThat(c.consume(Message.of("m")).status()).isEqualTo(Outcome.Status.APPLIED);

    assertThat(counter(registry, "inbox.lease.overruns", "orders")).isEqualTo(1.0);
  }

  @Test
  void pruneRunsAndPrunedRecordsAreCountedSeparately() {
    IdempotentConsumer c = consumer(memory, (m, a) -> {});
    c.consume(Message.of("a"));
    c.consume(Message.of("b"));
    storeClock.advance(RETENTION.plus(Duration.ofSeconds(1)));

    assertThat(c.pruneExpired()).isEqualTo(2);
    assertThat(c.pruneExpired()).isZero();

    assertThat(counter(registry, "inbox.prunes", "orders")).isEqualTo(2.0);
    assertThat(counter(registry, "inbox.pruned.records", "orders")).isEqualTo(2.0);
  }

  @Test
  void eventsBeforeBindingAreNotKeptAndLaterOnesAre() {
    InboxMetrics unbound = InboxMetrics.builder().build();
    IdempotentConsumer c =
        IdempotentConsumer.builder("late", memory)
            .config(config(1))
            .listener(unbound.listener())
            .handler(
                (m, a) -> {
                  throw new IllegalStateException("poison");
                })
            .build();
    c.consume(Message.of("before"));
    SimpleMeterRegistry later = new SimpleMeterRegistry();
    unbound.bindTo(later);

    assertThat(counter(later, "inbox.dead.letters", "late")).isZero();
    c.consume(Message.of("after"));
    assertThat(counter(later, "inbox.dead.letters", "late")).isEqualTo(1.0);
  }

  /** A store whose {@code complete} fails as an unreachable database would. */
  private static final class CompleteFails extends ForwardingInboxStore {
    CompleteFails(InboxStore d) {
      super(d);
    }

    @Override
    public InboxRecord complete(Claim claim, byte[] result) {
      throw new StoreUnavailableException("database unreachable", null);
    }
  }
}
