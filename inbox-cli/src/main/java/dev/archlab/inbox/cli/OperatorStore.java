package dev.archlab.inbox.cli;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * What the operator commands ({@code status}, {@code list}, {@code show}, {@code release}, {@code
 * retry-dead}, {@code prune}) need from a store, whatever holds the records: a JDBC table ({@link
 * JdbcOperatorStore}) or Redis ({@link RedisOperatorStore}). Every time is the store's clock, never
 * this machine's. Closing it releases the connections it opened.
 */
interface OperatorStore extends AutoCloseable {

  /** Where the records are, for messages: "table inbox", "Redis key prefix 'inbox:'". */
  String location();

  /** The store's clock. */
  Instant currentTime();

  /** Per consumer with records, by name; {@code retention} decides what is past retention. */
  List<OperatorStats> stats(Duration retention);

  /** The oldest records of {@code state}, of one consumer or (null) all. */
  List<InboxRecord> list(RecordState state, String consumer, int limit);

  /** One record, if there is one. */
  Optional<InboxRecord> find(String consumer, String messageId);

  /** Ends a PROCESSING record's lease now; empty if there is no PROCESSING record. */
  Optional<InboxRecord> release(String consumer, String messageId);

  /** Makes DEAD records start again at attempt 1; no ids for every DEAD record of the consumer. */
  long retryDead(String consumer, List<String> messageIds);

  /** DONE records (of one consumer, or null: all) last updated strictly before {@code before}. */
  long countPrunable(String consumer, Instant before);

  /** Deletes what {@link #countPrunable} counts, reporting the running total after every batch. */
  long prune(String consumer, Instant before, LongConsumer progress);

  @Override
  void close();
}
