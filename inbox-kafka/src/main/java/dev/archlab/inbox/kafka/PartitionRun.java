package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.jdbc.ConsumeMode;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Runs the records of one partition from one poll, in offset order, and reports each finished
 * record as it finishes. It stops at the first record that is not finished (IN_FLIGHT, FAILED, an
 * error, or a dead letter that was not confirmed), so the records after it are read again in order.
 */
final class PartitionRun implements Runnable {

  private static final System.Logger LOG = System.getLogger(PartitionRun.class.getName());

  private final TopicPartition partition;
  private final List<ConsumerRecord<byte[], byte[]>> records;
  private final LoopParts parts;
  private final BooleanSupplier stopped;
  private final Consumer<Progress> report;

  /** What every run of one loop shares. */
  record LoopParts(
      ConsumeMode mode,
      MessageIdSource ids,
      DeadLetterPublisher deadLetters,
      KafkaLoopListener listener,
      Duration errorBackoff) {}

  PartitionRun(
      TopicPartition partition,
      List<ConsumerRecord<byte[], byte[]>> records,
      LoopParts parts,
      BooleanSupplier stopped,
      Consumer<Progress> report) {
    this.partition = partition;
    this.records = records;
    this.parts = parts;
    this.stopped = stopped;
    this.report = report;
  }

  @Override
  public void run() {
    try {
      report.accept(runRecords());
    } catch (RuntimeException | Error e) {
      // Never leave the polling thread waiting for an end: report the first record as unfinished.
      LOG.log(Level.ERROR, "partition run of " + partition + " failed", e);
      report.accept(Progress.retry(partition, records.get(0).offset(), parts.errorBackoff()));
      throw e;
    }
  }

  private Progress runRecords() {
    List<Prepared> prepared = new ArrayList<>(records.size());
    for (ConsumerRecord<byte[], byte[]> r : records) {
      prepared.add(prepare(r));
    }
    int i = 0;
    while (i < prepared.size()) {
      Prepared p = prepared.get(i);
      if (stopped.getAsBoolean()) {
        return Progress.stopped(partition, p.record.offset());
      }
      if (p.message == null) {
        if (!deadLetter(p.record, p.noIdReason, 0)) {
          return Progress.retry(partition, p.record.offset(), parts.errorBackoff());
        }
        report.accept(Progress.finished(partition, p.record.offset()));
        i++;
        continue;
      }
      List<Prepared> batch = new ArrayList<>();
      while (i + batch.size() < prepared.size()
          && batch.size() < parts.mode().maxBatch()
          && prepared.get(i + batch.size()).message != null) {
        batch.add(prepared.get(i + batch.size()));
      }
      Progress stop = consumeBatch(batch);
      if (stop != null) {
        return stop;
      }
      i += batch.size();
    }
    return Progress.done(partition);
  }

  /** Consumes the batch and reports its finished records; returns the run's end if one stops it. */
  private Progress consumeBatch(List<Prepared> batch) {
    List<Message> messages = new ArrayList<>(batch.size());
    for (Prepared p : batch) {
      messages.add(p.message);
    }
    List<Outcome> outcomes;
    try {
      outcomes = parts.mode().consume(messages);
    } catch (RuntimeException e) {
      if (batch.size() > 1) {
        // Nothing tells which record failed: go one by one (those that committed come back
        // DUPLICATE), so that a payload mismatch or a store error stops at its own record.
        for (Prepared p : batch) {
          Progress stop = consumeBatch(List.of(p));
          if (stop != null) {
            return stop;
          }
        }
        return null;
      }
      return failedCall(batch.get(0).record, e);
    }
    for (int k = 0; k < outcomes.size(); k++) {
      Progress stop = settle(batch.get(k).record, outcomes.get(k));
      if (stop != null) {
        return stop;
      }
    }
    if (outcomes.size() < batch.size()) {
      // An in-order mode answers up to its first unfinished record, which stops the run above;
      // a shorter answer without one would leave records behind: read them again.
      return Progress.retry(
          partition, batch.get(outcomes.size()).record.offset(), parts.errorBackoff());
    }
    return null;
  }

  private Progress failedCall(ConsumerRecord<byte[], byte[]> record, RuntimeException e) {
    if (e instanceof PayloadMismatchException) {
      // Bad input that no retry can fix: park it with its reason instead of blocking the partition.
      return deadLetter(record, "payload mismatch: " + e.getMessage(), 0)
          ? finished(record)
          : Progress.retry(partition, record.offset(), parts.errorBackoff());
    }
    LOG.log(
        Level.WARNING,
        "consuming " + partition + "@" + record.offset() + " failed; it will be read again",
        e);
    return Progress.retry(partition, record.offset(), parts.errorBackoff());
  }

  private Progress finished(ConsumerRecord<byte[], byte[]> record) {
    report.accept(Progress.finished(partition, record.offset()));
    return null;
  }

  private Progress settle(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
    notifyListener(() -> parts.listener().outcome(record, outcome));
    switch (outcome.status()) {
      case APPLIED, DUPLICATE:
        return finished(record);
      case DEAD:
        return deadLetter(record, deadReason(outcome), outcome.attempts())
            ? finished(record)
            : Progress.retry(partition, record.offset(), parts.errorBackoff());
      case IN_FLIGHT, FAILED:
      default:
        return Progress.retry(partition, record.offset(), outcome.retryAfter());
    }
  }

  /**
   * The error the inbox record keeps, whichever delivery parked it: a redelivery answered DEAD
   * (DEAD_SEEN), or a repeat within one batch, carries it as {@link Outcome#lastError()} though it
   * has no throwable.
   */
  private static String deadReason(Outcome outcome) {
    if (outcome.lastError() != null) {
      return outcome.lastError();
    }
    return outcome.error() != null
        ? outcome.error().toString()
        : "dead in the inbox, no error kept";
  }

  private boolean deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, int attempts) {
    try {
      parts.deadLetters().publish(record, parts.mode().consumerName(), attempts, reason);
    } catch (DeadLetterException e) {
      LOG.log(Level.WARNING, e.getMessage(), e);
      notifyListener(() -> parts.listener().deadLetterFailed(record, e));
      return false;
    }
    notifyListener(() -> parts.listener().deadLettered(record, reason));
    return true;
  }

  private Prepared prepare(ConsumerRecord<byte[], byte[]> record) {
    String id;
    try {
      id = parts.ids().idOf(record);
    } catch (InvalidMessageIdException e) {
      return new Prepared(record, null, "invalid message id: " + e.getMessage());
    }
    if (id == null) {
      return new Prepared(record, null, "no message id");
    }
    Map<String, String> headers = new HashMap<>();
    for (Header h : record.headers()) {
      if (h.value() != null) {
        headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    try {
      return new Prepared(record, new Message(id, record.topic(), record.value(), headers), null);
    } catch (InvalidMessageIdException e) {
      return new Prepared(record, null, "invalid message id: " + e.getMessage());
    }
  }

  private static void notifyListener(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "loop listener threw", e);
    }
  }

  private record Prepared(
      ConsumerRecord<byte[], byte[]> record, Message message, String noIdReason) {}
}
