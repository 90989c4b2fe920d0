package dev.archlab.inbox.bench;

import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * java -jar inbox-bench/target/inbox-bench.jar jmh MemoryStoreBenchmark \
 *     -rf csv -rff inbox-bench/target/bench/jmh.csv
 * </pre>
 *
 * <p>Defaults: 1 fork, 3 × 2 s warm-up, 5 × 2 s measurement per case (12 cases, about 2.5 minutes).
 * Pass {@code -f 0 -wi 0 -i 1 -r 1} for a quick check.
 *
 * <p>Each iteration starts from an empty store: with unique ids every map grows for the whole
 * iteration, and starting over keeps iterations comparable and memory bounded.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgs = {"-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class MemoryStoreBenchmark {

  /** The implementation under test. */
  @Param({"inbox", "chm", "camel"})
  public String impl;

  /** Percentage of deliveries that repeat the previous id: 0 or 50. */
  @Param({"0", "50"})
  public int duplicatePercent;

  private static final String CONSUMER = "bench";
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final AtomicInteger threadIds = new AtomicInteger();
  private Dedup dedup;

  /** One deduplication step per delivery; returns whether the delivery was new. */
  interface Dedup {
    boolean deliver(String id);
  }

  @Setup(Level.Iteration)
  public void freshStore() {
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
      case "camel":
        // Sized so nothing is evicted within an iteration: an LRU that forgets ids would be a
        // cheaper, weaker dedup and not the same work.
        MemoryIdempotentRepository repo =
            (MemoryIdempotentRepository)
                MemoryIdempotentRepository.memoryIdempotentRepository(64_000_000);
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

  /** Per-thread id source, so threads never contend on id generation. */
  @State(Scope.Thread)
  public static class Ids {
    private String prefix;
    private long next;
    private String last;
    private boolean repeatNext;

    @Setup(Level.Iteration)
    public void reset(MemoryStoreBenchmark bench) {
      prefix = "t" + bench.threadIds.incrementAndGet() + "-";
      next = 0;
      last = null;
      repeatNext = false;
    }

    String nextId(int duplicatePercent) {
      // 50 %: every second delivery repeats the one before, the pattern of a broker redelivery.
      if (duplicatePercent > 0 && repeatNext && last != null) {
        repeatNext = false;
        return last;
      }
      repeatNext = duplicatePercent > 0;
      last = prefix + next++;
      return last;
    }
  }

  @Benchmark
  @Threads(1)
  public boolean oneThread(Ids ids) {
    return dedup.deliver(ids.nextId(duplicatePercent));
  }

  @Benchmark
  @Threads(2)
  public boolean twoThreads(Ids ids) {
    return dedup.deliver(ids.nextId(duplicatePercent));
  }
}
