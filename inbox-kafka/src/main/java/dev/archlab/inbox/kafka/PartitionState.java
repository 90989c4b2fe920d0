package dev.archlab.inbox.kafka;

/** One assigned partition; touched only by the polling thread (stop is read by its run). */
final class PartitionState {
  final OffsetTracker tracker = new OffsetTracker();
  boolean running;
  boolean waiting;
  long resumeAtNanos;
  volatile boolean stop;
}
