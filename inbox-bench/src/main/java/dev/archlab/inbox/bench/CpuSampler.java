package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples the machine's CPU use (all cores, from {@code /proc/stat}) ten times a second on a daemon
 * thread, so the busy share of any wall-clock window inside the sampling can be read afterwards.
 * Where {@code /proc/stat} is not readable, every window is NaN.
 */
final class CpuSampler implements AutoCloseable {

  /** One reading: wall-clock time, busy and total jiffies since boot. */
  private record Sample(long epochMillis, long busy, long total) {}

  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stopped;

  private CpuSampler() {
    thread = new Thread(this::loop, "cpu-sampler");
    thread.setDaemon(true);
  }

  static CpuSampler start() {
    CpuSampler s = new CpuSampler();
    s.take();
    s.thread.start();
    return s;
  }

  private void loop() {
    while (!stopped) {
      try {
        Thread.sleep(100); // the sampling period, not a wait for anything
      } catch (InterruptedException e) {
        return;
      }
      take();
    }
  }

  private void take() {
    long now = System.currentTimeMillis();
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
      synchronized (samples) {
        samples.add(new Sample(now, total - idle, total));
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or an unexpected format: the windows report NaN.
    }
  }

  /**
   * The busy share, in percent, from the last sample at or before {@code fromMillis} to the first
   * at or after {@code toMillis} (so the window read is at most one period wider on each side).
   */
  double busyPercent(long fromMillis, long toMillis) {
    take();
    Sample from = null;
    Sample to = null;
    synchronized (samples) {
      for (Sample s : samples) {
        if (s.epochMillis() <= fromMillis) {
          from = s;
        }
        if (to == null && s.epochMillis() >= toMillis) {
          to = s;
        }
      }
    }
    if (from == null || to == null || to.total() == from.total()) {
      return Double.NaN;
    }
    return 100.0 * (to.busy() - from.busy()) / (to.total() - from.total());
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}
