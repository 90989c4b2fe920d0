package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The five tests of the seed article's Go demo ({@code consumer_test.go}), one Java counterpart
 * each, asserting the same facts against {@link IdempotentConsumer} and {@link MemoryInboxStore}.
 */
class SeedScenariosTest {

  private static final Instant BASE = Instant.parse("2026-10-17T12:00:00Z");

  /** Like the Go test's {@code Now}: every reading is one second later than the previous one. */
  private static final class TickingClock extends Clock {
    private final AtomicReference<Instant> now = new AtomicReference<>(BASE);

    @Override
    public Instant instant() {
      return now.updateAndGet(t -> t.plusSeconds(1));
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("a test clock has one zone");
    }
  }

  /** Go: {@code fixedConsumer}, a 30 s lease and a handler that only counts. */
  private static IdempotentConsumer fixedConsumer(MemoryInboxStore store, AtomicInteger calls) {
    return IdempotentConsumer.builder("notifier", store)
        .config(InboxConfig.custom().lease(Duration.ofSeconds(30)).build())
        .handler((message, attempt) -> calls.incrementAndGet())
        .build();
  }

  @Test
  void duplicateDeliveryAppliesOnce() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c = fixedConsumer(new MemoryInboxStore(new TickingClock()), calls);
    List<Outcome.Status> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      got.add(c.consume(Message.of("m-1", "order.placed", null)).status());
    }
    assertThat(got)
        .containsExactly(
            Outcome.Status.APPLIED, Outcome.Status.DUPLICATE, Outcome.Status.DUPLICATE);
    assertThat(calls).hasValue(1);
  }

  @Test
  @Timeout(60)
  void concurrentDuplicatesApplyOnce() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder("notifier", new MemoryInboxStore())
            // Real time: a lease far longer than the test, so no claim can expire (and be taken
            // over, running the handler twice) however slowly a loaded machine runs the owner.
            .config(InboxConfig.custom().lease(Duration.ofMinutes(10)).build())
            .handler(
                (message, attempt) -> {
                  calls.incrementAndGet();
                  Thread.sleep(20);
                })
            .build();
    int workers = 6;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<Outcome>> results = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return c.consume(Message.of("m-concurrent"));
                }));
      }
      start.countDown();
      int applied = 0;
      for (Future<Outcome> f : results) {
        Outcome.Status status = f.get(30, TimeUnit.SECONDS).status(); // backstop only
        // Go accepts a nil error or ErrInFlight; here both are outcomes, never exceptions.
        assertThat(status)
            .isIn(Outcome.Status.APPLIED, Outcome.Status.IN_FLIGHT, Outcome.Status.DUPLICATE);
        if (status == Outcome.Status.APPLIED) {
          applied++;
        }
      }
      assertThat(applied).isEqualTo(1);
      assertThat(calls).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void handlerFailureIsRetried() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder("notifier", new MemoryInboxStore(new TickingClock()))
            .config(
                InboxConfig.custom()
                    .lease(Duration.ofSeconds(1))
                    .retryPolicy(
                        RetryPolicy.custom()
                            .initialDelay(Duration.ofSeconds(1))
                            .multiplier(1)
                            .jitter(0)
                            .build())
                    .build())
            .handler(
                (message, attempt) -> {
                  if (calls.incrementAndGet() <= 2) {
                    throw new IllegalStateException("provider timeout");
                  }
                })
            .build();
    for (int i = 0; i < 2; i++) {
      Outcome failed = c.consume(Message.of("m-retry"));
      assertThat(failed.status()).as("attempt %d", i + 1).isEqualTo(Outcome.Status.FAILED);
      assertThat(failed.error()).hasMessage("provider timeout");
    }
    assertThat(c.consume(Message.of("m-retry")).status()).isEqualTo(Outcome.Status.APPLIED);
    assertThat(calls).hasValue(3);
  }

  @Test
  void crashBeforeAckLeasesUntilExpiry() {
    AtomicReference<Instant> now = new AtomicReference<>(BASE);
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now.get();
          }

          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }
        };
    MemoryInboxStore store = new MemoryInboxStore(clock);
    BeginRequest request = new BeginRequest("notifier", "m-crash", Duration.ofSeconds(1), 5, null);

    assertThat(store.begin(request).claimed()).isTrue();
    // Crash while processing: neither complete nor fail; the lease stays in the table.
    now.set(BASE.plusMillis(500));
    assertThat(store.begin(request).claimed()).isFalse();

    now.set(BASE.plusSeconds(2));
    BeginResult after = store.begin(request);
    assertThat(after.kind()).isEqualTo(Kind.TAKEN_OVER);
    assertThat(after.record().attempts()).isEqualTo(2);
    assertThat(after.record().state()).isEqualTo(RecordState.PROCESSING);
    store.complete(after.claim(), null);

    now.set(BASE.plusSeconds(3));
    assertThat(store.begin(request).claimed()).as("completed message claimed again").isFalse();
  }

  @Test
  void pruneDefinesDedupWindow() {
    AtomicInteger calls = new AtomicInteger();
    MemoryInboxStore store = new MemoryInboxStore(new TickingClock());
    IdempotentConsumer c = fixedConsumer(store, calls);
    assertThat(c.consume(Message.of("m-window")).status()).isEqualTo(Outcome.Status.APPLIED);

    assertThat(store.prune(BASE.plus(Duration.ofHours(1)))).isEqualTo(1);
    // Once its dedup record is pruned, the same message id runs the business effect again.
    assertThat(c.consume(Message.of("m-window")).status()).isEqualTo(Outcome.Status.APPLIED);
    assertThat(calls).hasValue(2);
  }
}
