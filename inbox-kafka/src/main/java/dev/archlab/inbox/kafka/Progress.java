package dev.archlab.inbox.kafka;

import java.time.Duration;
import org.apache.kafka.common.TopicPartition;

/**
 * What a partition run reports to the polling thread, one record at a time. A run ends with exactly
 * one of {@link Kind#DONE}, {@link Kind#RETRY} or {@link Kind#STOPPED}.
 */
record Progress(TopicPartition partition, long offset, Kind kind, Duration retryAfter) {

  enum Kind {
    /** The record at {@code offset} is finished; the offset may pass it. */
    FINISHED,
    /** Every record handed to the run finished. */
    DONE,
    /** The record at {@code offset} is not finished: seek back and pause for retryAfter. */
    RETRY,
    /** The run stopped before the record at {@code offset} (revocation or close). */
    STOPPED
  }

  boolean terminal() {
    return kind != Kind.FINISHED;
  }

  static Progress finished(TopicPartition tp, long offset) {
    return new Progress(tp, offset, Kind.FINISHED, Duration.ZERO);
  }

  static Progress done(TopicPartition tp) {
    return new Progress(tp, -1, Kind.DONE, Duration.ZERO);
  }

  static Progress retry(TopicPartition tp, long offset, Duration after) {
    return new Progress(tp, offset, Kind.RETRY, after);
  }

  static Progress stopped(TopicPartition tp, long offset) {
    return new Progress(tp, offset, Kind.STOPPED, Duration.ZERO);
  }
}
