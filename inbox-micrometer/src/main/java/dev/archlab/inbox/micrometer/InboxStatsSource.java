package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.List;

/**
 * Where the store gauges come from: one read returns the figures of every consumer that has
 * records. {@link InboxMetrics} calls it at most once per configured interval, however often the
 * registry is scraped, so a read may be an aggregate query over the whole table.
 *
 * <p>{@code InboxStore} has no operation that returns these figures, so this small interface sits
 * between the meters and a store: {@link #of(InboxOperations)} asks a store's operator operations
 * (one aggregate statement on a JDBC table, exact PROCESSING and DEAD counts on Redis), {@link
 * #scanning(InboxStore)} computes them from any store's records (for the memory store).
 */
@FunctionalInterface
public interface InboxStatsSource {

  /**
   * Reads the current figures.
   *
   * @return one entry per consumer that has records, at most one per consumer name; a consumer
   *     without an entry has no records
   * @throws RuntimeException if the store cannot be read; the gauges then report NaN until a later
   *     read succeeds
   */
  List<InboxStats> read();

  /**
   * Figures computed from the records themselves: each read lists every record of the store (by
   * {@link InboxStore#list}) and counts them, with expiry and age measured by {@link
   * InboxStore#currentTime()}. Meant for {@link dev.archlab.inbox.memory.MemoryInboxStore} and
   * other small stores; a read costs time and memory in proportion to the number of records, so use
   * {@link #of(InboxOperations)} for the JDBC and Redis stores. The three states are listed one
   * after the other, so a record that changes state meanwhile may be counted in both or neither.
   *
   * @param store the store to read
   * @return a source reading {@code store}
   * @throws InvalidArgumentException if {@code store} is null
   */
  static InboxStatsSource scanning(InboxStore store) {
    if (store == null) {
      throw new InvalidArgumentException("store must not be null");
    }
    return new RecordScan(store);
  }

  /**
   * Figures read through a store's operator operations ({@link InboxOperations#stats}), with every
   * time measured by the store's clock: {@code new JdbcInboxOperations(jdbcStore)} (one aggregate
   * statement per read) or {@code new RedisInboxOperations(redisStore)}.
   *
   * @param operations the store's operations
   * @return a source whose reads throw {@link dev.archlab.inbox.StoreUnavailableException} while
   *     the store cannot be reached
   * @throws InvalidArgumentException if {@code operations} is null
   */
  static InboxStatsSource of(InboxOperations operations) {
    if (operations == null) {
      throw new InvalidArgumentException("operations must not be null");
    }
    // The retention only decides pastRetention, which the gauges do not show.
    return () -> operations.stats(Duration.ZERO).stream().map(InboxStatsSource::figures).toList();
  }

  private static InboxStats figures(ConsumerOverview o) {
    // A record created between the store's reading of its clock and its count shows a negative
    // age: it is brand new.
    Duration age = o.oldestProcessingAge().isNegative() ? Duration.ZERO : o.oldestProcessingAge();
    return new InboxStats(o.consumer(), o.processing(), o.done(), o.dead(), o.expiredLeases(), age);
  }
}
