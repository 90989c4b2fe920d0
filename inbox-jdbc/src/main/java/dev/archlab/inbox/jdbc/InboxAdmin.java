package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.internal.InboxTable;
import dev.archlab.inbox.jdbc.internal.JdbcRunner;
import dev.archlab.inbox.operator.ConsumerOverview;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * What operators do to one store's table (the {@code inbox} command's status, release, retry-dead
 * and prune): counts per consumer, ending a hung owner's lease, forgetting DEAD records, and
 * pruning DONE records in short bounded batches with progress. Every time is the database's clock.
 * Obtained from {@link JdbcInboxStore#admin()}; every method borrows one pooled connection per
 * statement and throws {@link StoreUnavailableException} if the database cannot be reached.
 */
public final class InboxAdmin {

  private final JdbcRunner jdbc;
  private final InboxTable rows;
  private final int pruneBatchSize;

  InboxAdmin(JdbcRunner jdbc, InboxTable rows, int pruneBatchSize) {
    this.jdbc = jdbc;
    this.rows = rows;
    this.pruneBatchSize = pruneBatchSize;
  }

  /**
   * Counts per consumer: records by state, expired leases, the age of the oldest PROCESSING record
   * and DONE records older than {@code retention}, all measured by the database clock.
   */
  public List<ConsumerOverview> stats(Duration retention) {
    Objects.requireNonNull(retention, "retention");
    return jdbc.run(
        "status",
        true,
        (c, s) -> {
          Instant now;
          try (PreparedStatement ps = c.prepareStatement(s.now);
              ResultSet rs = ps.executeQuery()) {
            rs.next();
            now = s.dialect.getInstant(rs, "db_now");
          }
          List<ConsumerOverview> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(s.stats)) {
            s.dialect.setInstant(ps, 1, now);
            s.dialect.setInstant(ps, 2, now.minus(retention));
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                Instant oldest = s.dialect.getInstant(rs, "oldest");
                out.add(
                    new ConsumerOverview(
                        rs.getString("consumer"),
                        rs.getLong("processing"),
                        rs.getLong("done"),
                        rs.getLong("dead"),
                        rs.getLong("expired"),
                        oldest == null ? Duration.ZERO : Duration.between(oldest, now),
                        rs.getLong("past")));
              }
            }
          }
          return List.copyOf(out);
        });
  }

  /**
   * Ends a live lease now, so another instance may take the message over at its next delivery. For
   * an owner known to be gone (a hung host); a live owner will be fenced out.
   *
   * @return the record after the release; empty if there is no PROCESSING record for the key
   */
  public Optional<InboxRecord> release(String consumer, String messageId) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    return jdbc.run(
        "release",
        true,
        (c, s) -> {
          try (PreparedStatement ps = c.prepareStatement(s.release)) {
            ps.setString(1, consumer);
            ps.setString(2, messageId);
            if (ps.executeUpdate() == 0) {
              return Optional.empty();
            }
          }
          return Optional.ofNullable(rows.select(c, s, consumer, messageId));
        });
  }

  /**
   * Forgets DEAD records so their next delivery starts afresh at attempt 1 with the full retry
   * budget (for after the cause was fixed). Only DEAD records are touched. Like pruning, this
   * restarts the fencing tokens of those messages: use it only when no instance still works on
   * them.
   *
   * @param messageIds the ids to retry; empty for every DEAD record of the consumer
   * @return how many DEAD records were released for retry
   */
  public long retryDead(String consumer, List<String> messageIds) {
    Identifiers.requireConsumerName(consumer);
    Objects.requireNonNull(messageIds, "messageIds");
    for (String id : messageIds) {
      Identifiers.requireMessageId(id);
    }
    return jdbc.run(
        "retry dead",
        true,
        (c, s) -> {
          if (messageIds.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(s.retryDeadAll)) {
              ps.setString(1, consumer);
              return (long) ps.executeUpdate();
            }
          }
          long total = 0;
          try (PreparedStatement ps = c.prepareStatement(s.retryDeadOne)) {
            for (String id : messageIds) {
              ps.setString(1, consumer);
              ps.setString(2, id);
              total += ps.executeUpdate();
            }
          }
          return total;
        });
  }

  /**
   * Counts {@code consumer}'s records per state among those whose message id starts with {@code
   * idPrefix} and, unless {@code idBelow} is null, sorts below {@code idBelow} in the database's
   * collation. For checking the end state of a run of known ids (the {@code inbox simulate}
   * command's) without bringing the ids into memory.
   *
   * @return a count for every state, zero where there are none
   */
  public Map<RecordState, Long> countByState(String consumer, String idPrefix, String idBelow) {
    Identifiers.requireConsumerName(consumer);
    Objects.requireNonNull(idPrefix, "idPrefix");
    return jdbc.run(
        "count by state",
        true,
        (c, s) -> {
          Map<RecordState, Long> out = new EnumMap<>(RecordState.class);
          for (RecordState state : RecordState.values()) {
            out.put(state, 0L);
          }
          try (PreparedStatement ps =
              c.prepareStatement(idBelow == null ? s.countByState : s.countByStateBelow)) {
            ps.setString(1, consumer);
            // '!' escapes LIKE's wildcards, so the prefix matches as written.
            ps.setString(2, idPrefix.replaceAll("([!%_])", "!$1") + "%");
            if (idBelow != null) {
              ps.setString(3, idBelow);
            }
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.put(RecordState.valueOf(rs.getString("state")), rs.getLong("n"));
              }
            }
          }
          return Collections.unmodifiableMap(out);
        });
  }

  /**
   * How many DONE records {@link JdbcInboxStore#prune(String, Instant)} would delete now (consumer
   * may be null).
   */
  public long countPrunable(String consumer, Instant before) {
    Objects.requireNonNull(before, "before");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer);
    }
    return jdbc.run(
        "count prunable",
        true,
        (c, s) -> {
          try (PreparedStatement ps =
              c.prepareStatement(consumer == null ? s.countPrunableAll : s.countPrunableConsumer)) {
            s.dialect.setInstant(ps, 1, before);
            if (consumer != null) {
              ps.setString(2, consumer);
            }
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  /**
   * {@link JdbcInboxStore#prune(String, Instant)} (all consumers when {@code consumer} is null)
   * that reports the running total after every batch, for progress displays.
   */
  public long prune(String consumer, Instant before, LongConsumer progress) {
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(progress, "progress");
    if (consumer != null) {
      Identifiers.requireConsumerName(consumer);
    }
    return pruneWhere(consumer, before, progress);
  }

  long pruneWhere(String consumer, Instant before, LongConsumer progress) {
    long total = 0;
    while (true) {
      // One short autocommit statement per batch: row locks are held for one batch only.
      int deleted =
          jdbc.run(
              "prune",
              true,
              (c, s) -> {
                try (PreparedStatement ps =
                    c.prepareStatement(consumer == null ? s.pruneAll : s.pruneConsumer)) {
                  int i = 1;
                  s.dialect.setInstant(ps, i++, before);
                  if (consumer != null) {
                    ps.setString(i++, consumer);
                  }
                  ps.setInt(i, pruneBatchSize);
                  return ps.executeUpdate();
                }
              });
      total += deleted;
      progress.accept(total);
      if (deleted < pruneBatchSize) {
        return total;
      }
    }
  }
}
