package dev.archlab.inbox.operator;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * What operators read and do on one store, whatever holds its records (a JDBC table, Redis): the
 * operations behind the {@code inbox} command's status, list, show, release, retry-dead and prune,
 * the operator page, the Micrometer store gauges and the Spring Boot health indicator and {@code
 * inbox} endpoint. Every time is the store's clock, never this machine's. Implementations are
 * thread-safe and own nothing: closing the store's connections is the store owner's job.
 * Implementations throw {@link dev.archlab.inbox.StoreUnavailableException} when the store cannot
 * be reached and {@link dev.archlab.inbox.InvalidArgumentException} for a malformed consumer name
 * or message id.
 */
public interface InboxOperations {

  /**
   * Where the records are, for messages.
   *
   * @return e.g. "table inbox" or "Redis key prefix 'inbox:'"
   */
  String location();

  /**
   * The store's clock.
   *
   * @return the store's current time
   */
  Instant currentTime();

  /**
   * One overview per consumer that has records, ordered by name, at most one per name.
   *
   * @param retention the dedup retention, which decides what is past retention
   * @return the overviews; empty when the store holds no records
   */
  List<ConsumerOverview> stats(Duration retention);

  /**
   * The oldest records in one state.
   *
   * @param state the state
   * @param consumer only this consumer's records; null for every consumer
   * @param limit at most this many, at least 1
   * @return the records, oldest first
   */
  List<InboxRecord> list(RecordState state, String consumer, int limit);

  /**
   * One record.
   *
   * @param consumer the consumer
   * @param messageId the message id
   * @return the record; empty if there is none
   */
  Optional<InboxRecord> find(String consumer, String messageId);

  /**
   * Ends a PROCESSING record's lease now, so the next delivery takes the message over.
   *
   * @param consumer the consumer
   * @param messageId the message id
   * @return the record after the release; empty if there is no PROCESSING record for the key
   */
  Optional<InboxRecord> release(String consumer, String messageId);

  /**
   * Makes DEAD records start again at attempt 1 with the full retry budget.
   *
   * @param consumer the consumer
   * @param messageIds the ids; empty for every DEAD record of the consumer
   * @return how many DEAD records are retryable again
   */
  long retryDead(String consumer, List<String> messageIds);

  /**
   * Counts the DONE records {@link #prune} would delete now.
   *
   * @param consumer only this consumer's records; null for every consumer
   * @param before the cut-off: records last updated strictly before it count
   * @return how many there are
   */
  long countPrunable(String consumer, Instant before);

  /**
   * Deletes what {@link #countPrunable} counts, in short batches.
   *
   * @param consumer only this consumer's records; null for every consumer
   * @param before the cut-off: records last updated strictly before it are deleted
   * @param progress receives the running total after every batch
   * @return how many records were deleted
   */
  long prune(String consumer, Instant before, LongConsumer progress);
}
