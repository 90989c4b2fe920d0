package dev.archlab.inbox.kafka;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.BrokerDecision;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.broker.DeliveryObserver;
import dev.archlab.inbox.broker.DeliveryObserver.Observed;
import dev.archlab.inbox.broker.MessageIdSource;
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
 * record as it finishes. It stops at the first record that is not finished (a {@link
 * BrokerDecision} that redelivers, or a dead letter that was not confirmed), so the records after
 * it are read again in order. What each outcome means is the shared {@link BrokerDecision}; this
 * class only translates it into offsets, pauses and dead-letter records. Each record is reported to
 * the loop's {@link DeliveryObserver}: observed from before its turn in the consumer (current
 * during it) until it is settled, its dead-letter publish a child of its observation.
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
      MessageIdSource<? super ConsumerRecord<byte[], byte[]>> ids,
      DeadLetterPublisher deadLetters,
      KafkaLoopListener listener,
      Duration errorBackoff,
      DeliveryObserver observer,
      String groupId) {}

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
        Observed observed = observe(p.record, null);
        observed.rejected(p.rejected.reason());
        Progress stop;
        try {
          stop = settle(p.record, p.rejected, observed);
        } finally {
          observed.end();
        }
        if (stop != null) {
          return stop;
        }
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
    Observed[] observed = new Observed[batch.size()];
    List<Outcome> outcomes;
    try {
      outcomes = parts.mode().consume(messages, interceptor(batch, observed));
    } catch (RuntimeException e) {
      if (batch.size() > 1) {
        for (Observed o : observed) {
          if (o != null) {
            o.failed(e);
            o.end();
          }
        }
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
      ConsumerRecord<byte[], byte[]> record = batch.get(0).record;
      BrokerDecision decision = BrokerDecision.ofFailedCall(e);
      if (!decision.finishes()) {
        LOG.log(
            Level.WARNING,
            "consuming " + partition + "@" + record.offset() + " failed; it will be read again",
            e);
      }
      Observed o = observed[0] != null ? observed[0] : observe(record, batch.get(0).message.id());
      o.failed(e);
      try {
        return settle(record, decision, o);
      } finally {
        o.end();
      }
    }
    try {
      for (int k = 0; k < outcomes.size(); k++) {
        if (observed[k] == null) {
          // The mode ran the batch as one unit, without a turn per record: observed afterwards.
          observed[k] = observe(batch.get(k).record, batch.get(k).message.id());
        }
        observed[k].outcome(outcomes.get(k));
      }
      for (int k = 0; k < outcomes.size(); k++) {
        ConsumerRecord<byte[], byte[]> record = batch.get(k).record;
        Outcome outcome = outcomes.get(k);
        notifyListener(() -> parts.listener().outcome(record, outcome));
        Progress stop = settle(record, BrokerDecision.of(outcome), observed[k]);
        observed[k].end();
        if (stop != null) {
          return stop;
        }
      }
    } finally {
      for (Observed o : observed) {
        if (o != null) {
          o.end(); // a record after one that stopped the run was consumed all the same
        }
      }
    }
    if (outcomes.size() < batch.size()) {
      // An in-order mode answers up to its first unfinished record, which stops the run above;
      // a shorter answer without one would leave records behind: read them again.
      return settle(batch.get(outcomes.size()).record, BrokerDecision.unanswered(), Observed.NONE);
    }
    return null;
  }

  /**
   * Runs each record's turn with its observation current, the observation started as the turn
   * begins, and in a one-commit batch each call of its handler, the observation started at the
   * first; a loop without an observer runs the mode without an interceptor.
   */
  private ConsumeInterceptor interceptor(List<Prepared> batch, Observed[] observed) {
    if (parts.observer() == DeliveryObserver.NONE) {
      return ConsumeInterceptor.NONE;
    }
    List<Message> messages = new ArrayList<>(batch.size());
    for (Prepared p : batch) {
      messages.add(p.message);
    }
    return DeliveryObserver.interceptorFor(
        messages, observed, k -> observe(batch.get(k).record, batch.get(k).message.id()));
  }

  /** Starts observing a record; {@code messageId} null when it has no valid one. */
  private Observed observe(ConsumerRecord<byte[], byte[]> record, String messageId) {
    if (parts.observer() == DeliveryObserver.NONE) {
      return Observed.NONE;
    }
    Map<String, String> attributes = new HashMap<>();
    attributes.put("messaging.destination.partition.id", Integer.toString(record.partition()));
    attributes.put("messaging.kafka.offset", Long.toString(record.offset()));
    if (parts.groupId() != null) {
      attributes.put("messaging.consumer.group.name", parts.groupId());
    }
    return parts
        .observer()
        .received(
            new DeliveryObserver.Received(
                "kafka",
                record.topic(),
                parts.mode().consumerName(),
                messageId,
                attributes,
                key -> {
                  Header h = record.headers().lastHeader(key);
                  return h == null || h.value() == null
                      ? null
                      : new String(h.value(), StandardCharsets.UTF_8);
                }));
  }

  /** Translates the decision: finished records are reported; the others end the run here. */
  private Progress settle(
      ConsumerRecord<byte[], byte[]> record, BrokerDecision decision, Observed observed) {
    return switch (decision.action()) {
      case ACKNOWLEDGE -> finished(record);
      case DEAD_LETTER ->
          deadLetter(record, decision.reason(), decision.attempts(), observed)
              ? finished(record)
              : Progress.retry(partition, record.offset(), parts.errorBackoff());
      case REDELIVER_WHEN_RELEASED, REDELIVER_FOR_RETRY, REDELIVER_AFTER_ERROR ->
          Progress.retry(partition, record.offset(), decision.redeliverAfter(parts.errorBackoff()));
    };
  }

  private Progress finished(ConsumerRecord<byte[], byte[]> record) {
    report.accept(Progress.finished(partition, record.offset()));
    return null;
  }

  private boolean deadLetter(
      ConsumerRecord<byte[], byte[]> record, String reason, int attempts, Observed observed) {
    DeliveryObserver.Publish publish =
        observed.publishing(
            DeliveryObserver.Purpose.DEAD_LETTER, parts.deadLetters().topicFor(record.topic()));
    try {
      parts
          .deadLetters()
          .publish(record, parts.mode().consumerName(), attempts, reason, publish.headers());
      publish.published();
    } catch (DeadLetterException e) {
      publish.failed(e);
      LOG.log(Level.WARNING, e.getMessage(), e);
      notifyListener(() -> parts.listener().deadLetterFailed(record, e));
      return false;
    }
    notifyListener(() -> parts.listener().deadLettered(record, reason));
    return true;
  }

  private Prepared prepare(ConsumerRecord<byte[], byte[]> record) {
    MessageIdSource.Identified identified =
        parts
            .ids()
            .identify(
                record, id -> new Message(id, record.topic(), record.value(), headers(record)));
    return new Prepared(record, identified.message(), identified.rejected());
  }

  private static Map<String, String> headers(ConsumerRecord<byte[], byte[]> record) {
    Map<String, String> headers = new HashMap<>();
    for (Header h : record.headers()) {
      if (h.value() != null) {
        headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return headers;
  }

  private static void notifyListener(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "loop listener threw", e);
    }
  }

  /** A record with its message, or with the dead-letter decision when it has no valid id. */
  private record Prepared(
      ConsumerRecord<byte[], byte[]> record, Message message, BrokerDecision rejected) {}
}
