package dev.archlab.inbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Takes a reading ten times a second on a daemon thread and keeps each with its wall-clock time, so
 * the readings around any window inside the sampling can be found afterwards. A reading that could
 * not be taken (the reader returns null) is skipped.
 *
 * @param <S> one reading
 */
final class TimedSamples<S> implements AutoCloseable {

  /** The readings that bound a window: at or before its start, at or after its end. */
  record Around<S>(S from, S to) {}

  private record Sample<S>(long epochMillis, S reading) {}

  private final Supplier<S> reader;
  private final List<Sample<S>> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stopped;

  private TimedSamples(String name, Supplier<S> reader) {
    this.reader = reader;
    this.thread = new Thread(this::loop, name);
    thread.setDaemon(true);
  }

  /** Takes a first reading now and keeps sampling until {@link #close()}. */
  static <S> TimedSamples<S> start(String name, Supplier<S> reader) {
    TimedSamples<S> s = new TimedSamples<>(name, reader);
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

  /** Takes a reading now, beside the periodic ones. */
  void take() {
    long now = System.currentTimeMillis();
    S reading = reader.get();
    if (reading != null) {
      synchronized (samples) {
        samples.add(new Sample<>(now, reading));
      }
    }
  }

  /**
   * The last reading at or before {@code fromMillis} and the first at or after {@code toMillis} (so
   * at most one period wider on each side than asked), or null if the sampling does not cover the
   * window.
   */
  Around<S> around(long fromMillis, long toMillis) {
    S from = null;
    S to = null;
    synchronized (samples) {
      for (Sample<S> s : samples) {
        if (s.epochMillis() <= fromMillis) {
          from = s.reading();
        }
        if (to == null && s.epochMillis() >= toMillis) {
          to = s.reading();
        }
      }
    }
    return from == null || to == null ? null : new Around<>(from, to);
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}
