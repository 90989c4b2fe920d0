package dev.archlab.inbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Runs a delivery function on N threads: a warm-up, then a measured window. A call counts toward
 * the measurement when it both starts and ends inside the window, so neither the warm-up nor the
 * stop is billed to the result. A timed window is also count-bounded: it stays open until at least
 * {@link #MIN_CALLS} calls were measured, so every figure rests on samples however slow the
 * machine. Each thread makes unique ids of its own.
 */
final class Workers {

  /** The fewest calls a timed window measures before it closes. */
  static final long MIN_CALLS = 10;

  /** One call on one thread; returns how many messages it applied. */
  @FunctionalInterface
  interface Call {
    int run(List<String> ids, Sample sample) throws Exception;
  }

  /**
   * Lets a call report the latency of one part of itself (the claim alone, in scale runs) instead
   * of its whole duration.
   */
  static final class Sample {
    private long nanos = -1;

    void set(long nanos) {
      this.nanos = nanos;
    }
  }

  /** What a measured window produced. */
  record Window(long calls, long messages, double seconds, long[] sortedNanos, long appliedTotal) {
    double messagesPerSecond() {
      return messages / seconds;
    }
  }

  private Workers() {}

  /**
   * @param idPrefix makes ids unique across runs sharing a table
   * @param batch ids per call
   * @param minCalls the window stays open past {@code measureSeconds} until at least this many
   *     calls were measured, so a loaded machine yields a slower figure, never an empty one
   * @param stopEarly polled between calls; a non-zero value ends the window early (scale runs),
   *     whatever {@code minCalls} says
   */
  static Window run(
      Call call,
      int threads,
      int batch,
      String idPrefix,
      double warmupSeconds,
      double measureSeconds,
      long minCalls,
      LongSupplier stopEarly)
      throws Exception {
    long start = System.nanoTime();
    long measureFrom = start + (long) (warmupSeconds * 1e9);
    long measureTo = measureFrom + (long) (measureSeconds * 1e9);
    List<Latencies> latencies = new ArrayList<>();
    AtomicLong calls = new AtomicLong();
    AtomicLong messages = new AtomicLong();
    AtomicLong applied = new AtomicLong();
    AtomicLong lastMeasuredEnd = new AtomicLong(measureFrom);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Latencies mine = new Latencies();
      latencies.add(mine);
      String prefix = idPrefix + "-" + t + "-";
      Thread thread =
          new Thread(
              () -> {
                long seq = 0;
                List<String> ids = new ArrayList<>(batch);
                Sample sample = new Sample();
                try {
                  while (failure.get() == null && stopEarly.getAsLong() == 0) {
                    ids.clear();
                    for (int i = 0; i < batch; i++) {
                      ids.add(prefix + seq++);
                    }
                    long t0 = System.nanoTime();
                    if (t0 >= measureTo && calls.get() >= minCalls) {
                      return;
                    }
                    sample.nanos = -1;
                    int n = call.run(List.copyOf(ids), sample);
                    long t1 = System.nanoTime();
                    applied.addAndGet(n);
                    // A call counts if it fits the window, or if the window is still short of
                    // minCalls: then the window grows to the end of that call.
                    if (t0 >= measureFrom && (t1 <= measureTo || calls.get() < minCalls)) {
                      mine.add(sample.nanos >= 0 ? sample.nanos : t1 - t0);
                      calls.incrementAndGet();
                      messages.addAndGet(batch);
                      lastMeasuredEnd.accumulateAndGet(t1, Math::max);
                    }
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "bench-worker-" + t);
      thread.setDaemon(true);
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a worker failed: " + failure.get(), failure.get());
    }
    long end = Math.max(Math.min(System.nanoTime(), measureTo), lastMeasuredEnd.get());
    double seconds = Math.max(1e-9, (end - measureFrom) / 1e9);
    return new Window(
        calls.get(), messages.get(), seconds, Latencies.merged(latencies), applied.get());
  }
}
