package dev.archlab.inbox.memory;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * "No global lock on the hot path": a slow operation on one key (here a store clock that blocks
 * while the store is deciding for key A, in begin or inside a fenced complete, fail or extend) must
 * not hold up other keys, nor even other callers of key A, and still exactly one caller claims A.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MemoryInboxStoreConcurrencyTest {

  private static final Instant T0 = Instant.parse("2026-10-17T12:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** A fixed clock whose instant() parks the one chosen thread until released. */
  private static final class BlockingClock extends Clock {
    final AtomicReference<Thread> victim = new AtomicReference<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public Instant instant() {
      if (Thread.currentThread() == victim.get()) {
        entered.countDown();
        try {
          // Bounded, so a broken test cannot hang the build.
          if (!release.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("blocking clock was never released");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return T0;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  private final BlockingClock clock = new BlockingClock();
  private final MemoryInboxStore store = new MemoryInboxStore(clock);
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void tearDown() {
    clock.release.countDown();
    pool.shutdownNow();
  }

  private static BeginRequest request(String consumer, String id) {
    return new BeginRequest(consumer, id, LEASE, 3, null);
  }

  /** Starts begin(A) on a pool thread that the clock parks while it decides for A. */
  private Future<BeginResult> holdKeyA() throws InterruptedException {
    Future<BeginResult> held =
        pool.submit(
            () -> {
              clock.victim.set(Thread.currentThread());
              return store.begin(request("orders", "A"));
            });
    assertThat(clock.entered.await(10, TimeUnit.SECONDS))
        .as("begin(A) reached the store clock while deciding")
        .isTrue();
    return held;
  }

  @Test
  void aStuckOperationOnOneKeyDoesNotBlockOtherKeys() throws Exception {
    Future<BeginResult> held = holdKeyA();

    Future<Integer> others =
        pool.submit(
            () -> {
              int completed = 0;
              for (int i = 0; i < 100; i++) {
                // Half share A's consumer, half belong to another consumer.
                String consumer = i % 2 == 0 ? "orders" : "shipping";
                BeginResult r = store.begin(request(consumer, "B" + i));
                assertThat(r.kind()).isEqualTo(BeginResult.Kind.CLAIMED);
                Claim claim = r.claim();
                InboxRecord done = store.complete(claim, null);
                assertThat(done.state()).isEqualTo(RecordState.DONE);
                completed++;
              }
              // The same consumer's other keys stay readable too.
              assertThat(store.find("orders", "B0")).isPresent();
              return completed;
            });

    // Generous for a loaded 2-core machine; 200 uncontended map operations take microseconds.
    assertThat(others.get(10, TimeUnit.SECONDS)).isEqualTo(100);
    assertThat(held).as("A is still stuck while the others finished").isNotDone();

    clock.release.countDown();
    BeginResult a = held.get(10, TimeUnit.SECONDS);
    assertThat(a.kind()).isEqualTo(BeginResult.Kind.CLAIMED);
    assertThat(a.record().attempts()).isEqualTo(1);
    assertThat(store.find("orders", "A").orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
  }

  /** A fenced operation the store clock can park: each reads the clock inside fenced(). */
  enum FencedOp {
    COMPLETE,
    FAIL,
    EXTEND;

    InboxRecord apply(MemoryInboxStore store, Claim claim) {
      switch (this) {
        case COMPLETE:
          return store.complete(claim, new byte[] {42});
        case FAIL:
          return store.fail(claim, "boom", Duration.ofSeconds(5));
        case EXTEND:
        default:
          store.extend(claim, LEASE.multipliedBy(2));
          return store.find(claim.consumer(), claim.messageId()).orElseThrow();
      }
    }
  }

  /** Starts {@code op} on A's claim on a pool thread that the clock parks inside the store. */
  private Future<InboxRecord> parkFenced(FencedOp op, Claim claimA) throws InterruptedException {
    Future<InboxRecord> held =
        pool.submit(
            () -> {
              clock.victim.set(Thread.currentThread());
              return op.apply(store, claimA);
            });
    assertThat(clock.entered.await(10, TimeUnit.SECONDS))
        .as("%s(A) reached the store clock inside the fenced write", op)
        .isTrue();
    return held;
  }

  @ParameterizedTest
  @EnumSource(FencedOp.class)
  void aFencedCallParkedInTheClockDoesNotBlockOtherKeysNorTheSameKey(FencedOp op) throws Exception {
    Claim claimA = store.begin(request("orders", "A")).claim();
    Future<InboxRecord> held = parkFenced(op, claimA);

    Future<Integer> others =
        pool.submit(
            () -> {
              int finished = 0;
              for (int i = 0; i < 100; i++) {
                String consumer = i % 2 == 0 ? "orders" : "shipping";
                Claim claim = store.begin(request(consumer, "B" + i)).claim();
                // Every fenced kind on other keys, each reading the same (non-parking) clock.
                assertThat(store.extend(claim, LEASE).fencingToken()).isEqualTo(1);
                InboxRecord end =
                    i % 4 < 2 ? store.complete(claim, null) : store.fail(claim, "x", LEASE);
                assertThat(end.state())
                    .isEqualTo(i % 4 < 2 ? RecordState.DONE : RecordState.PROCESSING);
                finished++;
              }
              // A fenced call on A itself passes the parked one: no lock is held for the key.
              assertThat(store.extend(claimA, LEASE).leaseUntil()).isEqualTo(T0.plus(LEASE));
              return finished;
            });

    assertThat(others.get(10, TimeUnit.SECONDS)).isEqualTo(100);
    assertThat(held).as("%s(A) is still parked while the others finished", op).isNotDone();

    clock.release.countDown();
    // The parked call's compare-and-set meets the newer entry, re-checks the fence and applies.
    InboxRecord a = held.get(10, TimeUnit.SECONDS);
    assertThat(a).isEqualTo(store.find("orders", "A").orElseThrow());
    assertThat(a.attempts()).isEqualTo(1);
    switch (op) {
      case COMPLETE:
        assertThat(a.state()).isEqualTo(RecordState.DONE);
        assertThat(a.result()).containsExactly(42);
        break;
      case FAIL:
        assertThat(a.state()).isEqualTo(RecordState.PROCESSING);
        assertThat(a.leaseUntil()).isEqualTo(T0.plusSeconds(5));
        assertThat(a.lastError()).isEqualTo("boom");
        break;
      case EXTEND:
      default:
        assertThat(a.state()).isEqualTo(RecordState.PROCESSING);
        assertThat(a.leaseUntil()).isEqualTo(T0.plus(LEASE.multipliedBy(2)));
        break;
    }
  }

  @Test
  void aStalledBeginDoesNotHoldUpTheSameKeyAndOnlyOneClaims() throws Exception {
    Future<BeginResult> held = holdKeyA();
    // The stalled caller holds no lock: a second caller for A decides at once.
    BeginResult second = pool.submit(() -> store.begin(request("orders", "A"))).get(10, SECONDS);
    assertThat(held).as("the first caller is still stalled").isNotDone();

    clock.release.countDown();
    BeginResult first = held.get(10, SECONDS);

    // Exactly one claim: the caller that got there first; the stalled one sees it in flight.
    assertThat(second.kind()).isEqualTo(BeginResult.Kind.CLAIMED);
    assertThat(first.kind()).isEqualTo(BeginResult.Kind.IN_FLIGHT);
    assertThat(first.record().attempts()).isEqualTo(1);
    assertThat(store.find("orders", "A").orElseThrow().attempts()).isEqualTo(1);
  }

  /**
   * Pruning removes a DONE record while other threads redeliver the same id. A redelivery then
   * either still sees the DONE record (DUPLICATE) or finds no record and claims anew, but the prune
   * must never remove a claim that was just made, and a claim's completion must never land on a
   * record that was removed: at most one live claim per id at any moment, every completion of a
   * claim succeeds, and nothing is left once everything is pruned.
   */
  @Test
  void pruneRacingRedeliveriesNeverDropsALiveClaimNorLosesACompletion() throws Exception {
    MemoryInboxStore real = new MemoryInboxStore(Clock.systemUTC());
    int keys = 8;
    int workers = 3;
    AtomicIntegerArray owners = new AtomicIntegerArray(keys);
    AtomicLong claims = new AtomicLong();
    AtomicLong prunePasses = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(workers + 1);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        running.add(
            threads.submit(
                () -> {
                  for (int round = 0; round < 20_000; round++) {
                    if (round == keys) {
                      // After its first pass every id has a record, all but the ones others
                      // hold DONE; wait for a whole prune pass to start and end after that, so
                      // that ids claimable again exist by construction, not by scheduling.
                      long p0 = prunePasses.get();
                      long backstop = System.nanoTime() + SECONDS.toNanos(60);
                      while (prunePasses.get() < p0 + 2) {
                        assertThat(System.nanoTime())
                            .as("prune pass (60 s backstop)")
                            .isLessThan(backstop);
                        Thread.sleep(1);
                      }
                    }
                    int key = round % keys;
                    BeginResult begun = real.begin(request("orders", "id-" + key));
                    if (begun.claimed()) {
                      assertThat(owners.incrementAndGet(key))
                          .as("live claims of id-" + key)
                          .isOne();
                      claims.incrementAndGet();
                      owners.decrementAndGet(key);
                      // Throws if the claim's record was removed or taken: it must be neither.
                      real.complete(begun.claim(), null);
                    } else {
                      assertThat(begun.kind())
                          .isIn(BeginResult.Kind.DUPLICATE, BeginResult.Kind.IN_FLIGHT);
                    }
                  }
                  return null;
                }));
      }
      Future<?> pruner =
          threads.submit(
              () -> {
                while (!stop.get()) {
                  real.prune(Instant.now().plusSeconds(3600));
                  prunePasses.incrementAndGet();
                }
                return null;
              });
      for (Future<?> f : running) {
        f.get(60, SECONDS);
      }
      stop.set(true);
      pruner.get(10, SECONDS);
    } finally {
      threads.shutdownNow();
    }
    assertThat(claims.get()).as("the prune made ids claimable again").isGreaterThan(keys);
    // Every claim was completed: each id is DONE, or already pruned by the pruner's last pass.
    int done = 0;
    for (int key = 0; key < keys; key++) {
      Optional<RecordState> state = real.find("orders", "id-" + key).map(InboxRecord::state);
      state.ifPresent(s -> assertThat(s).isEqualTo(RecordState.DONE));
      done += state.isPresent() ? 1 : 0;
    }
    assertThat(real.prune(Instant.now().plusSeconds(3600))).isEqualTo(done);
    assertThat(real.size()).isZero();
    assertThat(real.list(RecordState.DONE, null, 100)).isEmpty();
  }
}
