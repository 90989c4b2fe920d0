package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.jdbc.ConsumerStats;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.time.Duration;
import java.util.List;

/**
 * The store gauges of a {@link JdbcInboxStore}: each read is one aggregate statement ({@link
 * dev.archlab.inbox.jdbc.InboxAdmin#stats}) with every time measured by the database clock. Kept in
 * a class of its own so that {@code inbox-jdbc} is needed only by those who call it.
 */
public final class JdbcStatsSource {

  private JdbcStatsSource() {}

  /**
   * A source reading {@code store}'s table.
   *
   * @param store the JDBC store
   * @return a source whose reads throw {@link dev.archlab.inbox.StoreUnavailableException} while
   *     the database cannot be reached
   * @throws InvalidArgumentException if {@code store} is null
   */
  public static InboxStatsSource of(JdbcInboxStore store) {
    if (store == null) {
      throw new InvalidArgumentException("store must not be null");
    }
    return () -> toStats(store.admin().stats(Duration.ZERO));
  }

  private static List<InboxStats> toStats(List<ConsumerStats> rows) {
    return rows.stream()
        .map(
            s ->
                new InboxStats(
                    s.consumer(),
                    s.processing(),
                    s.done(),
                    s.dead(),
                    s.expiredLeases(),
                    // A record created between the statement's reading of now() and its scan
                    // would show a negative age: it is brand new.
                    s.oldestProcessingAge().isNegative() ? Duration.ZERO : s.oldestProcessingAge()))
        .toList();
  }
}
