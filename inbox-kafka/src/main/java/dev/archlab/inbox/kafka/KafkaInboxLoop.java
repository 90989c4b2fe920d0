package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.broker.DeliveryObserver;
import dev.archlab.inbox.broker.MessageIdSource;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka consumer loop that hands records to an Inbox consumer ({@link ConsumeMode}: {@code
 * consumer.asMode()}) and lets the outcomes drive the offsets, through the shared {@link
 * dev.archlab.inbox.broker.BrokerDecision}:
 *
 * <ul>
 *   <li>APPLIED, DUPLICATE and DEAD let the partition's offset pass the record; a DEAD record (and
 *       a record without a message id) is first published to the dead-letter topic, and the offset
 *       moves only after the broker confirmed it. If publishing fails, the offset stays.
 *   <li>IN_FLIGHT and FAILED pause that partition, seek back to the record and resume it after
 *       {@link dev.archlab.inbox.Outcome#retryAfter()}; other partitions keep flowing.
 *   <li>A committed offset never passes a record that is not finished, so a crash or a rebalance
 *       can only redeliver, never skip. Records of one partition run in offset order, one at a time
 *       (or as one batch); different partitions run in parallel up to {@code parallelism}.
 *   <li>On revocation the loop stops taking records of those partitions, waits for the running
 *       handlers to finish and commits what finished.
 * </ul>
 *
 * <p>{@link #run()} polls on the calling thread until {@link #close()} is called from another
 * thread. Auto-commit must be off and a group id set; key and value deserializers are always byte
 * arrays. The producer for dead letters is idempotent with {@code acks=all}.
 */
public final class KafkaInboxLoop implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(KafkaInboxLoop.class.getName());

  private final Map<String, Object> consumerProps;
  private final Map<String, Object> producerProps;
  private final List<String> topics;

  /** Default of {@link Builder#maxRecordsPerCall}. */
  public static final int DEFAULT_MAX_RECORDS_PER_CALL = 500;

  private final ConsumeMode mode;
  private final MessageIdSource<? super ConsumerRecord<byte[], byte[]>> ids;
  private final Function<String, String> deadLetterTopic;
  final KafkaLoopListener listener;
  private final DeliveryObserver observer;
  private final int parallelism;
  private final Duration pollTimeout;
  private final Duration errorBackoff;
  private final Duration deadLetterTimeout;
  private final Duration closeTimeout;
  private final Duration maxPause;

  private final BlockingQueue<Progress> progress = new LinkedBlockingQueue<>();
  final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean closing;
  private volatile boolean started;
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  private KafkaInboxLoop(Builder b) {
    this.consumerProps = b.consumerProps;
    this.producerProps = b.producerProps;
    this.topics = List.copyOf(b.topics);
    this.mode = b.mode.inOrderBatchesOf(b.maxRecordsPerCall);
    this.ids = b.ids;
    this.deadLetterTopic = b.deadLetterTopic;
    this.listener = b.listener;
    this.observer = DeliveryObserver.guarded(b.observer);
    this.parallelism = b.parallelism;
    this.pollTimeout = b.pollTimeout;
    this.errorBackoff = b.errorBackoff;
    this.deadLetterTimeout = b.deadLetterTimeout;
    this.closeTimeout = b.closeTimeout;
    this.maxPause = b.maxPause;
  }

  /**
   * A builder for a loop with these consumer properties (must hold {@code bootstrap.servers} and
   * {@code group.id}) and this mode.
   */
  public static Builder builder(Map<String, ?> consumerProperties, ConsumeMode mode) {
    return new Builder(consumerProperties, mode);
  }

  /**
   * Polls and consumes until {@link #close()}. Returns after the running handlers finished (up to
   * the close timeout) and the finished offsets were committed.
   *
   * @throws InvalidConfigurationException if a dead-letter topic cannot be written
   * @throws IllegalStateException if the loop ran before
   */
  public void run() {
    synchronized (this) {
      if (started) {
        throw new IllegalStateException("a KafkaInboxLoop runs once");
      }
      started = true;
    }
    ExecutorService workers =
        Executors.newFixedThreadPool(parallelism, ClientProperties.workerThreads(mode));
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                producerProps, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> kafka =
            new KafkaConsumer<>(
                consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      DeadLetterPublisher deadLetters =
          new DeadLetterPublisher(producer, deadLetterTopic, deadLetterTimeout);
      deadLetters.requireWritable(topics);
      consumer = kafka;
      String group = String.valueOf(consumerProps.get("group.id")); // required by build()
      PartitionRun.LoopParts parts =
          new PartitionRun.LoopParts(
              mode, ids, deadLetters, listener, errorBackoff, observer, group);
      kafka.subscribe(topics, new Rebalance(this));
      if (closing) {
        return;
      }
      pollUntilClosed(kafka, workers, parts);
      stopAll();
      commit();
      // close()'s wakeup may land on that commit instead of a poll: then the second one commits.
      commit();
    } finally {
      workers.shutdownNow();
      finished.countDown();
    }
  }

  private void pollUntilClosed(
      KafkaConsumer<byte[], byte[]> kafka, ExecutorService workers, PartitionRun.LoopParts parts) {
    while (!closing) {
      applyProgress(false);
      resumeDue();
      commit();
      ConsumerRecords<byte[], byte[]> records;
      try {
        records = kafka.poll(pollTimeout);
      } catch (WakeupException e) {
        continue; // close() woke the poll
      }
      for (TopicPartition tp : records.partitions()) {
        PartitionState state = partitions.get(tp);
        List<ConsumerRecord<byte[], byte[]>> batch = records.records(tp);
        if (state == null || state.running || closing) {
          // Not ours any more, or already running: read it again from the first record.
          if (state != null) {
            kafka.seek(tp, batch.get(0).offset());
          }
          continue;
        }
        state.running = true;
        kafka.pause(List.of(tp));
        workers.execute(
            new PartitionRun(tp, batch, parts, () -> closing || state.stop, progress::add));
      }
    }
  }

  /** Applies the runs' reports; with {@code untilIdle}, waits until no partition is running. */
  void applyProgress(boolean untilIdle) {
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    while (true) {
      Progress p;
      if (untilIdle && anyRunning()) {
        try {
          long left = deadline - System.nanoTime();
          p = left <= 0 ? null : progress.poll(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (p == null) {
          LOG.log(Level.WARNING, "handlers still running after " + closeTimeout + "; not waiting");
          return;
        }
      } else {
        p = progress.poll();
        if (p == null) {
          return;
        }
      }
      apply(p);
    }
  }

  private void apply(Progress p) {
    PartitionState state = partitions.get(p.partition());
    if (state == null) {
      return; // lost partition: its offsets are another member's now
    }
    switch (p.kind()) {
      case FINISHED -> state.tracker.finished(p.offset());
      case DONE -> {
        state.running = false;
        if (!state.stop) {
          consumer.resume(List.of(p.partition()));
        }
      }
      case RETRY, STOPPED -> {
        state.running = false;
        state.tracker.unfinished(p.offset());
        if (!state.stop) {
          consumer.seek(p.partition(), p.offset());
          if (p.kind() == Progress.Kind.RETRY) {
            // Reading again early is harmless (IN_FLIGHT again) and bounds a long lease's pause.
            Duration pause = p.retryAfter().compareTo(maxPause) > 0 ? maxPause : p.retryAfter();
            state.resumeAtNanos = System.nanoTime() + pause.toNanos();
            state.waiting = true;
            notifyListener(() -> listener.paused(p.partition(), p.offset(), pause));
          } else {
            consumer.resume(List.of(p.partition()));
          }
        }
      }
    }
  }

  private boolean anyRunning() {
    for (PartitionState s : partitions.values()) {
      if (s.running) {
        return true;
      }
    }
    return false;
  }

  private void resumeDue() {
    long now = System.nanoTime();
    for (Map.Entry<TopicPartition, PartitionState> e : partitions.entrySet()) {
      PartitionState s = e.getValue();
      if (s.waiting && !s.running && now - s.resumeAtNanos >= 0) {
        s.waiting = false;
        // The tracker keeps the block until the record finishes on its next delivery.
        consumer.resume(List.of(e.getKey()));
        notifyListener(() -> listener.resumed(e.getKey()));
      }
    }
  }

  private void commit() {
    commit(partitions.keySet());
  }

  void commit(Collection<TopicPartition> which) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : which) {
      PartitionState s = partitions.get(tp);
      OptionalLong next = s == null ? OptionalLong.empty() : s.tracker.toCommit();
      if (next.isPresent()) {
        offsets.put(tp, new OffsetAndMetadata(next.getAsLong()));
      }
    }
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
    } catch (CommitFailedException | RebalanceInProgressException | WakeupException e) {
      // Not committed: the records are redelivered and come back DUPLICATE. Safe, never a skip.
      LOG.log(Level.INFO, "commit not accepted, will retry: " + e);
      return;
    } catch (KafkaException e) {
      LOG.log(Level.WARNING, "commit failed, will retry", e);
      return;
    }
    Map<TopicPartition, Long> done = new HashMap<>();
    offsets.forEach(
        (tp, o) -> {
          partitions.get(tp).tracker.committed(o.offset());
          done.put(tp, o.offset());
        });
    notifyListener(() -> listener.committed(Map.copyOf(done)));
  }

  private void stopAll() {
    for (PartitionState s : partitions.values()) {
      s.stop = true;
    }
    applyProgress(true);
  }

  /**
   * Stops the loop: no new record is taken, running handlers finish (up to the close timeout),
   * finished offsets are committed, and {@link #run()} returns. Waits for that from another thread;
   * safe to call more than once.
   */
  @Override
  public void close() {
    closing = true;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    if (started) {
      try {
        if (!finished.await(closeTimeout.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS)) {
          LOG.log(Level.WARNING, "loop did not stop within " + closeTimeout.multipliedBy(2));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  void notifyListener(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "loop listener threw", e);
    }
  }

  /**
   * Builds a {@link KafkaInboxLoop}. Defaults: ids from the {@value KafkaIds#DEFAULT_HEADER}
   * header, dead-letter topic {@code <topic>.DLT}, parallelism 1, poll timeout 100 ms, error
   * backoff 1 s, longest pause 30 s, dead-letter confirmation timeout 30 s, close timeout 30 s, no
   * listener, no observer, up to {@value #DEFAULT_MAX_RECORDS_PER_CALL} records per call of a
   * one-commit mode.
   */
  public static final class Builder {
    private final Map<String, Object> consumerProps;

    /** Default of {@link Builder#maxRecordsPerCall}. */
    public static final int DEFAULT_MAX_RECORDS_PER_CALL = 500;

    private final ConsumeMode mode;
    private final Map<String, Object> producerProps = new HashMap<>();
    private final List<String> topics = new ArrayList<>();
    private MessageIdSource<? super ConsumerRecord<byte[], byte[]>> ids = KafkaIds.defaults();
    private Function<String, String> deadLetterTopic = t -> t + ".DLT";
    private KafkaLoopListener listener = KafkaLoopListener.none();
    private DeliveryObserver observer = DeliveryObserver.NONE;
    private int parallelism = 1;
    private Duration pollTimeout = Duration.ofMillis(100);
    private Duration errorBackoff = Duration.ofSeconds(1);
    private Duration deadLetterTimeout = Duration.ofSeconds(30);
    private Duration closeTimeout = Duration.ofSeconds(30);
    private Duration maxPause = Duration.ofSeconds(30);
    private int maxRecordsPerCall = DEFAULT_MAX_RECORDS_PER_CALL;

    private Builder(Map<String, ?> consumerProperties, ConsumeMode mode) {
      Objects.requireNonNull(consumerProperties, "consumerProperties");
      this.consumerProps = new HashMap<>(consumerProperties);
      this.mode = Objects.requireNonNull(mode, "mode");
    }

    /** The topics to subscribe to (at least one). */
    public Builder topics(String... names) {
      for (String n : names) {
        if (n == null || n.isBlank()) {
          throw new InvalidConfigurationException("topic name must not be blank, was '" + n + "'");
        }
        topics.add(n);
      }
      return this;
    }

    /**
     * Where a record's message id comes from: {@link KafkaIds#defaults()}, {@link KafkaIds#header},
     * {@link KafkaIds#topicPartitionOffset()}, or an own source.
     */
    public Builder messageIds(MessageIdSource<? super ConsumerRecord<byte[], byte[]>> ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    /** Maps a topic to its dead-letter topic. */
    public Builder deadLetterTopic(Function<String, String> deadLetterTopic) {
      this.deadLetterTopic = Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
      return this;
    }

    /**
     * Extra properties for the dead-letter producer; {@code bootstrap.servers} defaults to the
     * consumer's. Idempotence and {@code acks=all} cannot be turned off.
     */
    public Builder producerProperties(Map<String, ?> props) {
      producerProps.putAll(Objects.requireNonNull(props, "props"));
      return this;
    }

    /** Where the loop reports what it did; combine several with {@link KafkaLoopListener#all}. */
    public Builder listener(KafkaLoopListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Where each record is reported for tracing ({@code InboxObservations.deliveryObserver()} in
     * {@code inbox-micrometer}): observed from its turn in the consumer (current while the handler
     * runs) until it is settled, its dead-letter publish a child whose context replaces the
     * record's {@code traceparent} in the dead-letter record. Default {@link
     * DeliveryObserver#NONE}.
     */
    public Builder observer(DeliveryObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** How many partitions run at once (each partition stays in order). */
    public Builder parallelism(int parallelism) {
      if (parallelism < 1) {
        throw new InvalidConfigurationException("parallelism must be >= 1, was " + parallelism);
      }
      this.parallelism = parallelism;
      return this;
    }

    public Builder pollTimeout(Duration d) {
      this.pollTimeout = ClientProperties.positive("pollTimeout", d);
      return this;
    }

    /** How long a partition waits after a store error or a dead letter that failed. */
    public Builder errorBackoff(Duration d) {
      this.errorBackoff = ClientProperties.positive("errorBackoff", d);
      return this;
    }

    public Builder deadLetterTimeout(Duration d) {
      this.deadLetterTimeout = ClientProperties.positive("deadLetterTimeout", d);
      return this;
    }

    /**
     * The longest a partition stays paused after IN_FLIGHT or FAILED before its record is read
     * again (a long lease would otherwise pause it for the lease's whole length).
     */
    public Builder maxPause(Duration d) {
      this.maxPause = ClientProperties.positive("maxPause", d);
      return this;
    }

    /**
     * Most records of one partition from one poll consumed in one call of the mode. With {@code
     * OneCommitConsumer.asMode()} they form one transaction ({@code
     * OneCommitConsumer.consumeInOrder} in {@code inbox-jdbc}): one multi-row claim, the handler
     * once per new record, one commit; nothing after a record that does not finish is consumed, so
     * effects keep offset order. 1 turns the grouping off (one transaction per record). With {@link
     * dev.archlab.inbox.IdempotentConsumer#asMode()} the records' new ids are claimed together,
     * then each runs and completes on its own ({@link
     * dev.archlab.inbox.IdempotentConsumer#consumeInOrder}). The batch mode keeps its own size.
     * Default {@value #DEFAULT_MAX_RECORDS_PER_CALL}, Kafka's default {@code max.poll.records}.
     */
    public Builder maxRecordsPerCall(int maxRecordsPerCall) {
      if (maxRecordsPerCall < 1) {
        throw new InvalidConfigurationException(
            "maxRecordsPerCall must be >= 1, was " + maxRecordsPerCall);
      }
      this.maxRecordsPerCall = maxRecordsPerCall;
      return this;
    }

    public Builder closeTimeout(Duration d) {
      this.closeTimeout = ClientProperties.positive("closeTimeout", d);
      return this;
    }

    /**
     * @throws InvalidConfigurationException if no topic, no {@code group.id}, no {@code
     *     bootstrap.servers}, auto-commit on, or the producer's idempotence or acks weakened
     */
    public KafkaInboxLoop build() {
      if (topics.isEmpty()) {
        throw new InvalidConfigurationException("at least one topic is required");
      }
      ClientProperties.makeSafe(consumerProps, producerProps);
      return new KafkaInboxLoop(this);
    }
  }
}
