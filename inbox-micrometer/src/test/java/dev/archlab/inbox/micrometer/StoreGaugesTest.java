package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.Fixtures.LEASE;
import static dev.archlab.inbox.micrometer.Fixtures.expiredLeases;
import static dev.archlab.inbox.micrometer.Fixtures.oldestAgeSeconds;
import static dev.archlab.inbox.micrometer.Fixtures.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.testkit.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The store gauges on the memory store: the figures are right, and the store is read at most once
 * per interval of the injected clock however often the registry is scraped.
 */
class StoreGaugesTest {

  private static final Duration INTERVAL = Duration.ofSeconds(10);

  private final MockClock ticker = new MockClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock storeClock = new MutableClock();
  private final MemoryInboxStore store = new MemoryInboxStore(storeClock);
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicBoolean failReads = new AtomicBoolean();

  private InboxMetrics metrics(InboxStatsSource source) {
    InboxMetrics m =
        InboxMetrics.builder()
            .stats(source)
            .statsInterval(INTERVAL)
            .clock(ticker)
            .consumers("orders", "payments", "idle")
            .build();
    m.bindTo(registry);
    return m;
  }

  /** Counts reads of the scanning source and fails them while {@link #failReads} is set. */
  private InboxStatsSource countedScan() {
    InboxStatsSource scan = InboxStatsSource.scanning(store);
    return () -> {
      reads.incrementAndGet();
      if (failReads.get()) {
        throw new IllegalStateException("store unreachable");
      }
      return scan.read();
    };
  }

  private BeginResult begin(String consumer, String id, int maxAttempts) {
    return store.begin(new BeginRequest(consumer, id, LEASE, maxAttempts, null));
  }

  private void scrape() {
    for (Meter meter : registry.getMeters()) {
      meter.measure().forEach(measurement -> measurement.getValue());
    }
  }

  @Test
  void gaugesShowRecordsPerStateExpiredLeasesAndTheOldestProcessingAge() {
    metrics(InboxStatsSource.scanning(store));
    begin("orders", "old", 3); // lease until +30 s
    storeClock.advance(Duration.ofSeconds(10));
    begin("orders", "new", 3); // lease until +40 s
    store.complete(begin("orders", "done", 3).claim(), null);
    store.markDead(begin("orders", "poison", 3).claim(), "parked");
    store.complete(begin("payments", "p1", 3).claim(), null);
    storeClock.advance(Duration.ofSeconds(25)); // +35 s: "old" has expired, "new" has not

    assertThat(records(registry, "orders", "processing")).isEqualTo(2.0);
    assertThat(records(registry, "orders", "done")).isEqualTo(1.0);
    assertThat(records(registry, "orders", "dead")).isEqualTo(1.0);
    assertThat(expiredLeases(registry, "orders")).isEqualTo(1.0);
    assertThat(oldestAgeSeconds(registry, "orders")).isEqualTo(35.0);

    assertThat(records(registry, "payments", "done")).isEqualTo(1.0);
    assertThat(records(registry, "payments", "processing")).isZero();
    assertThat(oldestAgeSeconds(registry, "payments")).isZero();

    for (String state : List.of("processing", "done", "dead")) {
      assertThat(records(registry, "idle", state)).as(state).isZero();
    }
    assertThat(expiredLeases(registry, "idle")).isZero();
  }

  @Test
  void theStoreIsReadAtMostOncePerIntervalHoweverOftenItIsScraped() {
    metrics(countedScan());
    begin("orders", "a", 3);

    for (int i = 0; i < 5; i++) {
      scrape(); // every gauge of three consumers, five times
    }
    assertThat(reads.get()).isEqualTo(1);
    assertThat(records(registry, "orders", "processing")).isEqualTo(1.0);

    begin("orders", "b", 3);
    ticker.add(INTERVAL.minusNanos(1));
    scrape();
    assertThat(reads.get()).isEqualTo(1);
    assertThat(records(registry, "orders", "processing")).isEqualTo(1.0); // the cached figure

    ticker.add(1, TimeUnit.NANOSECONDS);
    scrape();
    scrape();
    assertThat(reads.get()).isEqualTo(2);
    assertThat(records(registry, "orders", "processing")).isEqualTo(2.0);
  }

  @Test
  void aFailedReadShowsNanAndIsNotRetriedBeforeTheInterval() {
    metrics(countedScan());
    begin("orders", "a", 3);
    failReads.set(true);

    scrape();
    assertThat(records(registry, "orders", "processing")).isNaN();
    assertThat(expiredLeases(registry, "orders")).isNaN();
    assertThat(oldestAgeSeconds(registry, "orders")).isNaN();
    ticker.add(INTERVAL.minusNanos(1));
    scrape();
    assertThat(reads.get()).isEqualTo(1);

    failReads.set(false);
    ticker.add(1, TimeUnit.NANOSECONDS);
    assertThat(records(registry, "orders", "processing")).isEqualTo(1.0);
    assertThat(reads.get()).isEqualTo(2);
  }

  @Test
  void concurrentScrapesShareOneRead() throws Exception {
    CountDownLatch inRead = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    InboxStatsSource scan = InboxStatsSource.scanning(store);
    metrics(
        () -> {
          reads.incrementAndGet();
          inRead.countDown();
          await(release);
          return scan.read();
        });
    begin("orders", "a", 3);
    Thread first = new Thread(() -> records(registry, "orders", "processing"));
    first.start();
    inRead.await();
    double[] seen = new double[1];
    Thread second = new Thread(() -> seen[0] = records(registry, "payments", "done"));
    second.start();
    // Wait (not a timing assertion) until the second scrape waits for the first one's read.
    while (second.getState() != Thread.State.BLOCKED) {
      assertThat(second.isAlive()).as("second scrape finished without waiting").isTrue();
      Thread.onSpinWait();
    }
    release.countDown();
    first.join();
    second.join();

    assertThat(reads.get()).isEqualTo(1);
    assertThat(seen[0]).isZero(); // served from the first scrape's read
  }

  @Test
  void badSettingsAreRefusedByName() {
    assertThatThrownBy(() -> InboxMetrics.builder().statsInterval(Duration.ZERO))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("statsInterval must be positive, was PT0S");
    assertThatThrownBy(() -> InboxMetrics.builder().statsInterval(Duration.ofDays(365 * 400)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("statsInterval must be at most");
    assertThatThrownBy(() -> InboxMetrics.builder().stats(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("stats must not be null");
    assertThatThrownBy(() -> InboxMetrics.builder().consumers("ok", " padded"))
        .isInstanceOf(dev.archlab.inbox.InvalidConsumerNameException.class)
        .hasMessageContaining("' padded'");
    assertThatThrownBy(() -> new InboxStats("c", 1, 0, 0, 2, Duration.ZERO))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("expiredLeases (2) exceeds processing (1) for consumer 'c'");
    assertThatThrownBy(() -> new InboxStats("c", 0, -1, 0, 0, Duration.ZERO))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("done must be >= 0 for consumer 'c', was -1");
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
