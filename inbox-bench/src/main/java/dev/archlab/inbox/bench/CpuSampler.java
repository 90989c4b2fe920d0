package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Samples the machine's CPU use (all cores, from {@code /proc/stat}) ten times a second, so the
 * busy share of any wall-clock window inside the sampling can be read afterwards. Where {@code
 * /proc/stat} is not readable, every window is NaN.
 */
final class CpuSampler implements AutoCloseable {

  /** Busy and total jiffies since boot. */
  private record Jiffies(long busy, long total) {}

  private final TimedSamples<Jiffies> samples;

  private CpuSampler() {
    this.samples = TimedSamples.start("cpu-sampler", CpuSampler::read);
  }

  static CpuSampler start() {
    return new CpuSampler();
  }

  private static Jiffies read() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
      return new Jiffies(total - idle, total);
    } catch (IOException | RuntimeException e) {
      return null; // not Linux, or an unexpected format: the windows report NaN
    }
  }

  /**
   * The busy share, in percent, from the last sample at or before {@code fromMillis} to the first
   * at or after {@code toMillis} (so the window read is at most one period wider on each side).
   */
  double busyPercent(long fromMillis, long toMillis) {
    samples.take();
    TimedSamples.Around<Jiffies> w = samples.around(fromMillis, toMillis);
    if (w == null || w.to().total() == w.from().total()) {
      return Double.NaN;
    }
    return 100.0 * (w.to().busy() - w.from().busy()) / (w.to().total() - w.from().total());
  }

  @Override
  public void close() {
    samples.close();
  }
}
