package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.StoreUnavailableException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
  private final TableName table;
  private final int pruneBatchSize;

  InboxAdmin(JdbcRunner jdbc, InboxTable rows, int pruneBatchSize) {
    this.jdbc = jdbc;
    this.rows = rows;
    this.table = jdbc.table();
    this.pruneBatchSize = pruneBatchSize;
  }

  /**
   * Counts per consumer: records by state, expired leases, the age of the oldest PROCESSING record
   * and DONE records older than {@code retention}, all measured by the database clock.
   */
  public List<ConsumerStats> stats(Duration retention) {
    Objects.requireNonNull(retention, "retention");
    return jdbc.run(
        "status",
        true,
        c -> {
          Statements s = jdbc.statements(c);
          Instant now;
          try (PreparedStatement ps = c.prepareStatement(s.now);
              ResultSet rs = ps.executeQuery()) {
            rs.next();
            now = s.dialect.getInstant(rs, "db_now");
          }
          String sql =
              "SELECT consumer,"
                  + " SUM(CASE WHEN state = 'PROCESSING' THEN 1 ELSE 0 END) AS processing,"
                  + " SUM(CASE WHEN state = 'DONE' THEN 1 ELSE 0 END) AS done,"
                  + " SUM(CASE WHEN state = 'DEAD' THEN 1 ELSE 0 END) AS dead,"
                  + " SUM(CASE WHEN state = 'PROCESSING' AND lease_until <= ? THEN 1 ELSE 0 END)"
                  + " AS expired,"
                  + " MIN(CASE WHEN state = 'PROCESSING' THEN created_at END) AS oldest,"
                  + " SUM(CASE WHEN state = 'DONE' AND updated_at < ? THEN 1 ELSE 0 END) AS past"
                  + " FROM "
                  + table
                  + " GROUP BY consumer ORDER BY consumer";
          List<ConsumerStats> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            s.dialect.setInstant(ps, 1, now);
            s.dialect.setInstant(ps, 2, now.minus(retention));
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                Instant oldest = s.dialect.getInstant(rs, "oldest");
                out.add(
                    new ConsumerStats(
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
        c -> {
          Statements s = jdbc.statements(c);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + table
                      + " SET lease_until = "
                      + s.dialect.now()
                      + ", updated_at = "
                      + s.dialect.now()
                      + " WHERE consumer = ? AND message_id = ? AND state = 'PROCESSING'")) {
            ps.setString(1, consumer);
            ps.setString(2, messageId);
            if (ps.executeUpdate() == 0) {
              return Optional.empty();
            }
          }
          return Optional.ofNullable(rows.select(c, consumer, messageId));
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
        c -> {
          String base = "DELETE FROM " + table + " WHERE consumer = ? AND state = 'DEAD'";
          if (messageIds.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(base)) {
              ps.setString(1, consumer);
              return (long) ps.executeUpdate();
            }
          }
          long total = 0;
          try (PreparedStatement ps = c.prepareStatement(base + " AND message_id = ?")) {
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
        c -> {
          Statements s = jdbc.statements(c);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT COUNT(*) FROM "
                      + table
                      + " WHERE state = 'DONE' AND updated_at < ?"
                      + (consumer == null ? "" : " AND consumer = ?"))) {
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
    Statements s = jdbc.statements();
    String sql = consumer == null ? s.pruneAll : s.pruneConsumer;
    long total = 0;
    while (true) {
      // One short autocommit statement per batch: row locks are held for one batch only.
      int deleted =
          jdbc.run(
              "prune",
              true,
              c -> {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
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
