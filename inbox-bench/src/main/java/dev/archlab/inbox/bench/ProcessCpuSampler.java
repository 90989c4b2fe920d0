package dev.archlab.inbox.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Samples ten times a second, on a daemon thread, the CPU seconds of a run's three parties: the
 * client processes (the consumers), the database server (postmaster and backends) and the broker,
 * so that what each spent inside any wall-clock window of the sampling can be read afterwards. This
 * is what splits a throughput miss into the client's share and the server's on a machine where they
 * share the cores.
 */
final class ProcessCpuSampler implements AutoCloseable {

  /** CPU seconds each party spent in a window; NaN where a process could not be read. */
  record Split(double client, double server, double broker) {}

  private record Sample(long epochMillis, double client, double server, double broker) {}

  private final List<Long> clientPids;
  private final long serverPid;
  private final long brokerPid;
  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stopped;

  private ProcessCpuSampler(List<Long> clientPids, long serverPid, long brokerPid) {
    this.clientPids = List.copyOf(clientPids);
    this.serverPid = serverPid;
    this.brokerPid = brokerPid;
    this.thread = new Thread(this::loop, "process-cpu-sampler");
    thread.setDaemon(true);
  }

  /** Takes a first sample now and keeps sampling until {@link #close()}. */
  static ProcessCpuSampler start(List<Long> clientPids, long serverPid, long brokerPid) {
    ProcessCpuSampler s = new ProcessCpuSampler(clientPids, serverPid, brokerPid);
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

  /**
   * Takes a sample now: call it once the window's end has passed and before a client exits, so the
   * window has a sample at or after its end while every process can still be read.
   */
  void take() {
    long now = System.currentTimeMillis();
    double client = 0;
    for (long pid : clientPids) {
      client += ProcessCpu.seconds(pid);
    }
    Sample s =
        new Sample(
            now,
            client,
            serverPid < 0 ? Double.NaN : ProcessCpu.treeSeconds(serverPid),
            ProcessCpu.seconds(brokerPid));
    synchronized (samples) {
      samples.add(s);
    }
  }

  /**
   * CPU spent from the last sample at or before {@code fromMillis} to the first at or after {@code
   * toMillis} (at most one period wider on each side than asked).
   */
  Split between(long fromMillis, long toMillis) {
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
    if (from == null || to == null) {
      return new Split(Double.NaN, Double.NaN, Double.NaN);
    }
    return new Split(
        to.client() - from.client(), to.server() - from.server(), to.broker() - from.broker());
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}
