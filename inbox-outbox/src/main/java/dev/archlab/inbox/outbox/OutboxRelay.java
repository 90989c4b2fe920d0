package dev.archlab.inbox.outbox;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidConfigurationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Publishes the outbox's rows through an {@link OutboxPublisher} and records the broker's answers.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li><b>At least once, SENT only when acknowledged.</b> A round claims due rows, publishes them,
 *       and marks each SENT only after the publisher reported the broker's acknowledgement, all in
 *       the one transaction that holds the rows' locks. A relay that dies mid-round leaves its rows
 *       PENDING (its transaction rolls back) and they are published again: the receiving inbox
 *       deduplicates them by their id.
 *   <li><b>Per-key order.</b> A row is never published while an earlier row of its destination and
 *       key is unsent, and several relays on one table never publish rows of one key at the same
 *       time: see {@link RelayClaims} for the claim. Rows written by one transaction keep their
 *       send order; rows of concurrent transactions are ordered as they become visible. A DEAD row
 *       does not hold back later rows of its key (it is parked, not pending).
 *   <li><b>Several relays at once</b> on PostgreSQL, MariaDB 10.6+ and MySQL 8, without double work
 *       in the normal case: rows are claimed with {@code FOR UPDATE SKIP LOCKED} (see {@link
 *       RelayClaims}). On SQLite and H2, which have no {@code SKIP LOCKED}, with a lease on the
 *       database clock instead, publishing outside any transaction (see {@link LeaseClaims}).
 *   <li><b>Cost per round independent of the backlog.</b> A round reads the unsent rows from the
 *       front in seq order ({@link ClaimPlan}), so a million waiting rows, or a few keys with long
 *       queues, cost it no more than a hundred. Rows in backoff at the front are read past; a round
 *       when nothing at all is due reads one index entry.
 *   <li><b>Retries and parking.</b> A row the publisher could not publish for now is due again
 *       after an exponential backoff (on the database clock); one that can never be published is
 *       DEAD with the reason, until an operator retries it ({@link OutboxAdmin#retryDead}).
 *   <li><b>Retention.</b> SENT rows older than the retention are deleted by {@link #pruneSent()},
 *       which the running relay calls every {@code pruneInterval}.
 * </ul>
 *
 * <p>Idle latency: the running relay polls; after an empty round it waits {@code pollInterval}
 * (default 100 ms) before the next, and runs rounds back to back while there is work. A message
 * committed while the relay is idle is thus picked up within about one poll interval; {@link
 * #wakeUp()} starts a round at once.
 *
 * <p>Limit: a row the broker did not acknowledge within the publisher's own timeout is retried;
 * later rows of its key that the broker did take in the same round stay sent, so that row arrives
 * after them. Thread-safe; {@link #relayOnce()} may also be called by hand instead of {@link
 * #start()}.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(OutboxRelay.class.getName());

  private final Outbox outbox;
  private final OutboxPublisher publisher;
  private final int batchSize;
  private final Duration pollInterval;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Duration retention;
  private final Duration pruneInterval;
  private final Duration claimLease;
  private final Object wake = new Object();
  private boolean wakeRequested;
  private Thread thread;
  private volatile boolean running;

  private OutboxRelay(Builder b) {
    this.outbox = b.outbox;
    this.publisher = b.publisher;
    this.batchSize = b.batchSize;
    this.pollInterval = b.pollInterval;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.retention = b.retention;
    this.pruneInterval = b.pruneInterval;
    this.claimLease = b.claimLease;
  }

  /**
   * A builder for a relay of {@code outbox} through {@code publisher}; the relay owns the publisher
   * and closes it.
   *
   * @param outbox the outbox to relay
   * @param publisher where to publish
   * @return a builder with the documented defaults
   */
  public static Builder builder(Outbox outbox, OutboxPublisher publisher) {
    return new Builder(outbox, publisher);
  }

  /**
   * One round: claims up to {@code batchSize} due rows, publishes them and records the answers; in
   * one transaction holding the rows' locks on PostgreSQL, MariaDB and MySQL, with a lease
   * elsewhere.
   *
   * @return how many rows were claimed (published, retried or parked); 0 if none was due
   * @throws InboxException if the database fails; the round's rows stay PENDING
   */
  public int relayOnce() {
    OutboxStatements sql = outbox.statements();
    if (!sql.claimsWithSkipLocked()) {
      return leaseRound(sql);
    }
    RelayClaims claims = new RelayClaims(sql);
    try (Connection c = outbox.dataSource().getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      int isolation = c.getTransactionIsolation();
      // READ COMMITTED: InnoDB then takes no gap locks, which would make senders' inserts wait
      // for the whole round.
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      try {
        List<OutboxRow> rows = claims.claim(c, batchSize);
        if (rows.isEmpty()) {
          c.commit();
          return 0;
        }
        claims.record(c, rows, publish(rows), this::backoff);
        c.commit();
        return rows.size();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        c.setTransactionIsolation(isolation);
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("relay outbox '" + outbox.table() + "'", e, sql.dialect);
    }
  }

  /** A round with leases ({@link LeaseClaims}): claim, publish outside any transaction, mark. */
  private int leaseRound(OutboxStatements sql) {
    LeaseClaims claims = new LeaseClaims(sql);
    List<OutboxRow> rows = inTransaction(sql, c -> claims.claim(c, batchSize, claimLease));
    if (rows.isEmpty()) {
      return 0;
    }
    List<PublishResult> results = publish(rows);
    inTransaction(sql, c -> claims.record(c, rows, results, this::backoff));
    return rows.size();
  }

  private List<PublishResult> publish(List<OutboxRow> rows) {
    List<PublishResult> results = publisher.publish(rows);
    if (results.size() != rows.size()) {
      throw new IllegalStateException(
          "publisher answered " + results.size() + " results for " + rows.size() + " rows");
    }
    return results;
  }

  /** Work on a connection of its own that must commit as a whole. */
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T inTransaction(OutboxStatements sql, Work<T> work) {
    try (Connection c = outbox.dataSource().getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("relay outbox '" + outbox.table() + "'", e, sql.dialect);
    }
  }

  /**
   * Deletes SENT rows sent longer than the retention ago (on the database clock), in batches.
   *
   * @return how many rows were deleted
   * @throws InboxException if the database fails
   */
  public long pruneSent() {
    OutboxStatements sql = outbox.statements();
    long total = 0;
    try (Connection c = outbox.dataSource().getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      while (true) {
        int deleted;
        try (PreparedStatement ps = c.prepareStatement(sql.prune)) {
          ps.setLong(1, -(retention.toNanos() / 1000));
          ps.setInt(2, batchSize);
          deleted = ps.executeUpdate();
        }
        total += deleted;
        if (deleted < batchSize) {
          return total;
        }
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("prune outbox '" + outbox.table() + "'", e, sql.dialect);
    }
  }

  /** The delay before a row's next attempt after its {@code attempts}-th failed one. */
  Duration backoff(int attempts) {
    int doublings = Math.min(Math.max(attempts - 1, 0), 30);
    Duration d = initialBackoff.multipliedBy(1L << doublings);
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }

  /**
   * Starts relaying on a daemon thread of its own: rounds back to back while there is work, a
   * {@code pollInterval} pause after an empty round, {@link #pruneSent()} every {@code
   * pruneInterval}. A failing round is logged and tried again after the poll interval.
   *
   * @throws IllegalStateException if already started
   */
  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("outbox relay already started");
    }
    running = true;
    thread = new Thread(this::loop, "inbox-outbox-relay-" + outbox.table());
    thread.setDaemon(true);
    thread.start();
  }

  /** Ends the current pause of the running relay, so the next round starts at once. */
  public void wakeUp() {
    synchronized (wake) {
      wakeRequested = true;
      wake.notifyAll();
    }
  }

  private void loop() {
    long nextPrune = System.nanoTime();
    while (running) {
      int claimed = 0;
      try {
        claimed = relayOnce();
        if (System.nanoTime() - nextPrune >= 0) {
          pruneSent();
          nextPrune = System.nanoTime() + pruneInterval.toNanos();
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "outbox relay round failed; trying again", e);
      }
      if (claimed == 0) {
        pause();
      }
    }
  }

  private void pause() {
    long deadline = System.nanoTime() + pollInterval.toNanos();
    synchronized (wake) {
      while (running && !wakeRequested) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(wake, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      wakeRequested = false;
    }
  }

  /** Stops the running relay (waiting for its current round) and closes the publisher. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      running = false;
      t = thread;
      thread = null;
    }
    wakeUp();
    if (t != null) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    publisher.close();
  }

  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * Builds an {@link OutboxRelay}. Defaults: batch 100 rows, poll every 100 ms when idle, backoff
   * from 1 s doubling to at most 5 min, SENT rows kept 7 days and pruned every minute, claim leases
   * (SQLite, H2) of 3 minutes.
   */
  public static final class Builder {
    private final Outbox outbox;
    private final OutboxPublisher publisher;
    private int batchSize = 100;
    private Duration pollInterval = Duration.ofMillis(100);
    private Duration initialBackoff = Duration.ofSeconds(1);
    private Duration maxBackoff = Duration.ofMinutes(5);
    private Duration retention = Duration.ofDays(7);
    private Duration pruneInterval = Duration.ofMinutes(1);
    private Duration claimLease = Duration.ofMinutes(3);

    private Builder(Outbox outbox, OutboxPublisher publisher) {
      if (outbox == null || publisher == null) {
        throw new InvalidConfigurationException("outbox relay needs an outbox and a publisher");
      }
      this.outbox = outbox;
      this.publisher = publisher;
    }

    /**
     * Most rows claimed and published per round (per transaction).
     *
     * @param batchSize 1 to 10 000; default 100
     * @return this builder
     */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > 10_000) {
        throw new InvalidConfigurationException(
            "outbox relay batchSize must be between 1 and 10000, was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * The pause after a round that found nothing due.
     *
     * @param pollInterval 1 ms to 1 minute; default 100 ms
     * @return this builder
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = within("pollInterval", pollInterval, Duration.ofMillis(1), 1);
      return this;
    }

    /**
     * The backoff after a failed publish: {@code initial} doubled per further failure of the row,
     * capped at {@code max}.
     *
     * @param initial 1 ms to 1 hour; default 1 s
     * @param max from {@code initial} to 1 day; default 5 minutes
     * @return this builder
     */
    public Builder retryBackoff(Duration initial, Duration max) {
      this.initialBackoff = within("retry backoff", initial, Duration.ofMillis(1), 60);
      if (max == null || max.compareTo(initial) < 0 || max.compareTo(Duration.ofDays(1)) > 0) {
        throw new InvalidConfigurationException(
            "outbox relay maximum backoff must be between the initial backoff ("
                + initial
                + ") and 1 day, was "
                + max);
      }
      this.maxBackoff = max;
      return this;
    }

    /**
     * How long SENT rows are kept before {@link #pruneSent()} deletes them.
     *
     * @param retention zero or more, at most 3650 days; default 7 days
     * @return this builder
     */
    public Builder retention(Duration retention) {
      if (retention == null
          || retention.isNegative()
          || retention.compareTo(Duration.ofDays(3650)) > 0) {
        throw new InvalidConfigurationException(
            "outbox relay retention must be between 0 and 3650 days, was " + retention);
      }
      this.retention = retention;
      return this;
    }

    /**
     * How often the running relay prunes.
     *
     * @param pruneInterval 1 ms to 1 day; default 1 minute
     * @return this builder
     */
    public Builder pruneInterval(Duration pruneInterval) {
      this.pruneInterval = within("pruneInterval", pruneInterval, Duration.ofMillis(1), 24 * 60);
      return this;
    }

    /**
     * On databases without {@code SKIP LOCKED} (SQLite, H2): how long claimed rows stay this
     * relay's. Let it outlast a publish (the Kafka producer's {@code delivery.timeout.ms}, 2
     * minutes by default): a lease that runs out mid-publish lets another relay publish the rows
     * again (the receiving inbox deduplicates them).
     *
     * @param claimLease 1 ms to 1 day; default 3 minutes
     * @return this builder
     */
    public Builder claimLease(Duration claimLease) {
      this.claimLease = within("claimLease", claimLease, Duration.ofMillis(1), 24 * 60);
      return this;
    }

    private static Duration within(String name, Duration d, Duration min, long maxMinutes) {
      Objects.requireNonNull(name);
      if (d == null || d.compareTo(min) < 0 || d.compareTo(Duration.ofMinutes(maxMinutes)) > 0) {
        throw new InvalidConfigurationException(
            "outbox relay "
                + name
                + " must be between "
                + min
                + " and "
                + Duration.ofMinutes(maxMinutes)
                + ", was "
                + d);
      }
      return d;
    }

    /**
     * The relay, not yet started.
     *
     * @return a new relay
     */
    public OutboxRelay build() {
      return new OutboxRelay(this);
    }
  }
}
