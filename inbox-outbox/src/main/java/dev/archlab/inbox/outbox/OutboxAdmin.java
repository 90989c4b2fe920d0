package dev.archlab.inbox.outbox;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidArgumentException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an operator (the CLI, meters, a health check) reads and does on an outbox: the backlog by
 * state, the age of the oldest unsent row (measured on the database clock, so the JVM's clock never
 * skews it), the rows of a state, and putting a DEAD row back to PENDING. Reads run on the outbox's
 * data source, each in a statement of its own. Obtained from {@link Outbox#admin()}; thread-safe.
 */
public final class OutboxAdmin {

  /** A row's states. */
  public enum State {
    /** Written, not yet acknowledged by the broker. */
    PENDING,
    /** Acknowledged by the broker; deleted after the relay's retention. */
    SENT,
    /** Could not be published; waits for an operator. */
    DEAD;

    /**
     * The state called {@code name}, in any case and without surrounding blanks: what the page, the
     * endpoint and the CLI accept from an operator.
     *
     * @param name a state's name
     * @return that state
     * @throws InvalidArgumentException naming the states, if {@code name} is none of them
     */
    public static State parse(String name) {
      if (name != null) {
        try {
          return valueOf(name.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          // Answered below with the names an operator may use.
        }
      }
      throw new InvalidArgumentException(
          "unknown outbox state '" + name + "': use PENDING, SENT or DEAD");
    }
  }

  /**
   * How many rows are in each state.
   *
   * @param pending rows not yet acknowledged by the broker
   * @param sent acknowledged rows not yet pruned
   * @param dead parked rows
   */
  public record Counts(long pending, long sent, long dead) {}

  /**
   * One row as an operator sees it.
   *
   * @param row the message as the relay publishes it
   * @param state its state
   * @param lastError why its last publish failed, or null
   * @param createdAt when it was written, on the database clock
   * @param sentAt when the broker acknowledged it, or null
   */
  public record Entry(
      OutboxRow row, State state, String lastError, Instant createdAt, Instant sentAt) {}

  private final Outbox outbox;

  OutboxAdmin(Outbox outbox) {
    this.outbox = outbox;
  }

  /**
   * The number of rows in each state.
   *
   * @return the counts
   * @throws InboxException if the database fails
   */
  public Counts counts() {
    OutboxStatements sql = outbox.statements();
    long[] n = new long[State.values().length];
    try (Connection c = outbox.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql.countByState);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        n[State.valueOf(rs.getString("state")).ordinal()] = rs.getLong("n");
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("count outbox '" + outbox.table() + "'", e, sql.dialect);
    }
    return new Counts(n[State.PENDING.ordinal()], n[State.SENT.ordinal()], n[State.DEAD.ordinal()]);
  }

  /**
   * How long the oldest PENDING row has waited, on the database clock.
   *
   * @return its age, or empty if no row is pending
   * @throws InboxException if the database fails
   */
  public Optional<Duration> oldestPendingAge() {
    OutboxStatements sql = outbox.statements();
    try (Connection c = outbox.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql.oldestPending);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      Instant oldest = sql.dialect.getInstant(rs, "oldest");
      if (oldest == null) {
        return Optional.empty();
      }
      Duration age = Duration.between(oldest, sql.dialect.getInstant(rs, "db_now"));
      return Optional.of(age.isNegative() ? Duration.ZERO : age);
    } catch (SQLException e) {
      throw SqlErrors.translate("read outbox '" + outbox.table() + "'", e, sql.dialect);
    }
  }

  /**
   * The first rows of {@code state}, in sequence order.
   *
   * @param state which rows
   * @param limit at most this many, 1 to 10 000
   * @return the rows
   * @throws InvalidArgumentException if {@code limit} is out of range
   * @throws InboxException if the database fails
   */
  public List<Entry> list(State state, int limit) {
    if (state == null || limit < 1 || limit > 10_000) {
      throw new InvalidArgumentException(
          "outbox list needs a state and a limit from 1 to 10000, was " + state + ", " + limit);
    }
    OutboxStatements sql = outbox.statements();
    List<Entry> out = new ArrayList<>();
    try (Connection c = outbox.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql.list)) {
      ps.setString(1, state.name());
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          OutboxRow row =
              new OutboxRow(
                  rs.getLong("seq"),
                  rs.getString("message_id"),
                  rs.getString("destination"),
                  rs.getString("message_key"),
                  rs.getBytes("payload"),
                  HeaderCodec.decode(rs.getBytes("headers")),
                  rs.getInt("attempts"));
          out.add(
              new Entry(
                  row,
                  State.valueOf(rs.getString("state")),
                  rs.getString("last_error"),
                  sql.dialect.getInstant(rs, "created_at"),
                  sql.dialect.getInstant(rs, "sent_at")));
        }
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("list outbox '" + outbox.table() + "'", e, sql.dialect);
    }
    return out;
  }

  /**
   * Puts the DEAD row {@code messageId} back to PENDING, due now; its attempts and last error stay
   * for the record. It is again the earliest unsent row of its key, so it is published before the
   * rows of its key still pending; those published while it was parked went before it.
   *
   * @param messageId the row's message id
   * @return true if a DEAD row was retried, false if there is no DEAD row with that id
   * @throws InboxException if the database fails
   */
  public boolean retryDead(String messageId) {
    OutboxStatements sql = outbox.statements();
    try (Connection c = outbox.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql.retryDead)) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      ps.setString(1, messageId);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw SqlErrors.translate("retry in outbox '" + outbox.table() + "'", e, sql.dialect);
    }
  }
}
