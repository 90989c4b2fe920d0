package dev.archlab.inbox.bench;

import java.util.List;

/**
 * Samples ten times a second the CPU seconds of a run's three parties: the client processes (the
 * consumers), the database server (postmaster and backends) and the broker, so that what each spent
 * inside any wall-clock window of the sampling can be read afterwards. This is what splits a
 * throughput miss into the client's share and the server's on a machine where they share the cores.
 */
final class ProcessCpuSampler implements AutoCloseable {

  /** CPU seconds each party spent in a window; NaN where a process could not be read. */
  record Split(double client, double server, double broker) {}

  private final List<Long> clientPids;
  private final long serverPid;
  private final long brokerPid;
  private final TimedSamples<Split> samples;

  private ProcessCpuSampler(List<Long> clientPids, long serverPid, long brokerPid) {
    this.clientPids = List.copyOf(clientPids);
    this.serverPid = serverPid;
    this.brokerPid = brokerPid;
    this.samples = TimedSamples.start("process-cpu-sampler", this::read);
  }

  /** Takes a first sample now and keeps sampling until {@link #close()}. */
  static ProcessCpuSampler start(List<Long> clientPids, long serverPid, long brokerPid) {
    return new ProcessCpuSampler(clientPids, serverPid, brokerPid);
  }

  /** Each party's CPU seconds so far. */
  private Split read() {
    double client = 0;
    for (long pid : clientPids) {
      client += ProcessCpu.seconds(pid);
    }
    return new Split(
        client,
        serverPid < 0 ? Double.NaN : ProcessCpu.treeSeconds(serverPid),
        ProcessCpu.seconds(brokerPid));
  }

  /**
   * Takes a sample now: call it once the window's end has passed and before a client exits, so the
   * window has a sample at or after its end while every process can still be read.
   */
  void take() {
    samples.take();
  }

  /**
   * CPU spent from the last sample at or before {@code fromMillis} to the first at or after {@code
   * toMillis} (at most one period wider on each side than asked).
   */
  Split between(long fromMillis, long toMillis) {
    TimedSamples.Around<Split> w = samples.around(fromMillis, toMillis);
    if (w == null) {
      return new Split(Double.NaN, Double.NaN, Double.NaN);
    }
    return new Split(
        w.to().client() - w.from().client(),
        w.to().server() - w.from().server(),
        w.to().broker() - w.from().broker());
  }

  @Override
  public void close() {
    samples.close();
  }
}
