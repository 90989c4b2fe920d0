package dev.archlab.inbox.bench;

import java.util.Arrays;

/**
 * Latency samples of one thread, in nanoseconds, kept whole (not bucketed) so percentiles are
 * exact. Capped so a very long run cannot exhaust the heap; beyond the cap samples are dropped,
 * which only thins the tail of an already huge sample.
 */
final class Latencies {

  private static final int CAP = 20_000_000;

  private long[] samples = new long[1 << 16];
  private int size;

  void add(long nanos) {
    if (size == samples.length) {
      if (size >= CAP) {
        return;
      }
      samples = Arrays.copyOf(samples, Math.min(CAP, size * 2));
    }
    samples[size++] = nanos;
  }

  int size() {
    return size;
  }

  /** All samples of {@code parts}, sorted. */
  static long[] merged(Iterable<Latencies> parts) {
    int total = 0;
    for (Latencies l : parts) {
      total += l.size;
    }
    long[] all = new long[total];
    int at = 0;
    for (Latencies l : parts) {
      System.arraycopy(l.samples, 0, all, at, l.size);
      at += l.size;
    }
    Arrays.sort(all);
    return all;
  }

  /** The {@code p}-th percentile (0 to 100) of sorted samples, in microseconds; NaN if none. */
  static double percentileMicros(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1_000.0;
  }
}
