package dev.archlab.inbox.bench;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.support.processor.idempotent.MemoryIdempotentRepository;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-message cost of deduplication in memory: Inbox's {@link MemoryInboxStore} ({@code begin} and,
 * when claimed, {@code complete}) against the floor, a bare {@link ConcurrentHashMap#putIfAbsent},
 * and Apache Camel's {@link MemoryIdempotentRepository} ({@code add} and, when added, {@code
 * confirm}), at 1 and 2 threads, with unique ids and with every second id a repeat of the one
 * before (50 % duplicates).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -B -q package -pl inbox-bench -am
 * -DskipTests}):
 *
 * <pre>
 * java -jar inbox-bench/target/inbox-bench.jar jmh MemoryStoreBenchmark -gc true \
 *     -rf csv -rff inbox-bench/target/bench/jmh.csv
 * </pre>
 *
 * <p>Shape of a measurement: one iteration is one batch of {@link #DELIVERIES} new deliveries per
 * thread into a store that already holds {@link #WINDOW} completed ones, timed whole ({@link
 * Mode#SingleShotTime} with a batch size). The score is microseconds per batch; {@link MemoryRun}
 * turns it into deliveries per microsecond. This is the steady state of a deployment: the store
 * holds a pruned dedup window and takes new messages. Why not a timed throughput loop from an empty
 * store: with unique ids every map grows for as long as the loop runs, so a 2-second iteration
 * holds millions of entries and the result measures the garbage collector and the maps' table
 * resizing more than deduplication (the first version of this benchmark had error bars of ±50 to
 * ±90 %). The window is sized so that no map resizes during a batch. The window and the ids are
 * made before the batch starts, so neither is billed to anyone. A young generation far larger than
 * one iteration's allocation, emptied before each iteration ({@code -gc true}, which {@link
 * MemoryRun} sets), keeps collections out of the timed batches; what remains is each
 * implementation's own work, its allocation included.
 *
 * <p>Defaults: 1 fork, 15 warm-up and 40 measured batches per case (16 cases, about 8 minutes:
 * filling the window before every batch dominates). Pass {@code -wi 3 -i 5} for a quick check.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 15, batchSize = MemoryStoreBenchmark.DELIVERIES)
@Measurement(iterations = 40, batchSize = MemoryStoreBenchmark.DELIVERIES)
@Fork(
    value = 1,
    jvmArgs = {"-Xms3g", "-Xmx3g", "-Xmn2g"})
@State(Scope.Benchmark)
public class MemoryStoreBenchmark {

  /** Deliveries per thread in one measured batch. */
  public static final int DELIVERIES = 50_000;

  /**
   * Completed deliveries in the store before a batch. A hash map's table doubles when it is three
   * quarters full: 250 000 entries sit in a table of 2^19 slots, which holds up to 393 216 before
   * it doubles again, more than the window plus two threads' batches.
   */
  public static final int WINDOW = 250_000;

  /**
   * The implementation under test. {@code chm-timed} is not a dedup library but a second floor: the
   * least any store must do that, like Inbox, stamps a claim with the time (its lease starts then)
   * and a completion with the time (the dedup window counts from it), namely two wall-clock reads
   * and two map writes, {@code putIfAbsent} of the claim time and {@code replace} with the
   * completion time, without leases, fencing or records. It shows how much of the gap between the
   * store and {@code chm} is the clock.
   */
  @Param({"inbox", "chm", "chm-timed", "camel"})
  public String impl;

  /** Percentage of deliveries that repeat the previous id: 0 or 50. */
  @Param({"0", "50"})
  public int duplicatePercent;

  private static final String CONSUMER = "bench";
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** Makes every thread's ids in every batch distinct, so no batch sees another's. */
  private final AtomicLong batches = new AtomicLong();

  private Dedup dedup;

  /** One deduplication step per delivery; returns whether the delivery was new. */
  interface Dedup {
    boolean deliver(String id);
  }

  @Setup(Level.Iteration)
  public void freshStore() {
    openStore();
    for (int i = 0; i < WINDOW; i++) {
      dedup.deliver("window-" + i);
    }
  }

  /** A new, empty store of {@link #impl}. */
  void openStore() {
    switch (impl) {
      case "inbox":
        MemoryInboxStore store = new MemoryInboxStore();
        dedup =
            id -> {
              BeginResult begun = store.begin(new BeginRequest(CONSUMER, id, LEASE, 5, null));
              if (!begun.claimed()) {
                return false;
              }
              store.complete(begun.claim(), null);
              return true;
            };
        break;
      case "chm":
        ConcurrentHashMap<String, Boolean> map = new ConcurrentHashMap<>();
        dedup = id -> map.putIfAbsent(id, Boolean.TRUE) == null;
        break;
      case "chm-timed":
        Clock wall = Clock.systemUTC();
        ConcurrentHashMap<String, Instant> stamps = new ConcurrentHashMap<>();
        dedup =
            id -> {
              if (stamps.putIfAbsent(id, wall.instant()) != null) {
                return false;
              }
              stamps.replace(id, wall.instant());
              return true;
            };
        break;
      case "camel":
        // Sized so nothing is evicted: an LRU that forgets ids would be a cheaper, weaker dedup
        // and not the same work.
        MemoryIdempotentRepository repo =
            (MemoryIdempotentRepository)
                MemoryIdempotentRepository.memoryIdempotentRepository(2 * WINDOW);
        repo.start();
        dedup =
            id -> {
              if (!repo.add(id)) {
                return false;
              }
              repo.confirm(id);
              return true;
            };
        break;
      default:
        throw new IllegalArgumentException("unknown impl " + impl);
    }
  }

  @TearDown(Level.Iteration)
  public void dropStore() {
    dedup = null;
  }

  /** One thread's deliveries for the coming batch, made before it is timed. */
  @State(Scope.Thread)
  public static class Ids {
    private final String[] ids = new String[DELIVERIES];
    private int next;

    @Setup(Level.Iteration)
    public void reset(MemoryStoreBenchmark bench) {
      String prefix = "b" + bench.batches.incrementAndGet() + "-";
      for (int i = 0; i < DELIVERIES; i++) {
        // 50 %: every second delivery repeats the one before, the pattern of a broker redelivery.
        // The repeat is a new String equal to the first, as a redelivered message's id would be.
        long n = bench.duplicatePercent > 0 ? i / 2 : i;
        ids[i] = prefix + n;
      }
      next = 0;
    }

    String nextId() {
      return ids[next++];
    }
  }

  @Benchmark
  @Threads(1)
  public boolean oneThread(Ids ids) {
    return dedup.deliver(ids.nextId());
  }

  @Benchmark
  @Threads(2)
  public boolean twoThreads(Ids ids) {
    return dedup.deliver(ids.nextId());
  }
}
