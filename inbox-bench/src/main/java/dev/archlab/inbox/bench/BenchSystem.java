package dev.archlab.inbox.bench;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.processor.idempotent.jdbc.JdbcOrphanLockAwareIdempotentRepository;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;

/**
 * The systems the load harness compares. Every one does the same unit of work per message:
 * deduplicate the id and, if it is new, insert one row into {@link BenchDatabase#BUSINESS_TABLE}.
 * Where a system cannot share the business transaction (Camel's and Spring Integration's
 * repositories used as documented), the business insert is a transaction of its own.
 */
public enum BenchSystem {
  /**
   * Raw SQL, the floor for the lease mode: {@code INSERT … ON CONFLICT DO NOTHING} in autocommit,
   * then the business insert and {@code UPDATE … SET state = 'DONE'} in one transaction.
   */
  FLOOR("floor", 1, null),
  /** Inbox, single message, lease mode with {@link JdbcInboxStore#transactional}. */
  INBOX_SINGLE("inbox-single", 1, FLOOR),
  /**
   * {@link #INBOX_SINGLE} on a store with {@link JdbcInboxStoreBuilder#coalescing}: concurrent
   * claims share a statement; the business insert and DONE stay one transaction per message.
   */
  INBOX_SINGLE_COALESCED("inbox-single-coalesced", 1, FLOOR),
  /**
   * Inbox, single message, lease mode with a plain handler: claim, business insert in autocommit on
   * a connection of its own, complete; the same three steps as Camel's repositories.
   */
  INBOX_LEASE("inbox-lease", 1, FLOOR),
  /**
   * {@link #INBOX_LEASE} on a store with {@link JdbcInboxStoreBuilder#coalescing}: concurrent
   * claims share one statement, concurrent completions one statement and one commit.
   */
  INBOX_LEASE_COALESCED("inbox-lease-coalesced", 1, FLOOR),
  /**
   * Raw SQL, the floor for the one-commit mode: {@code INSERT … ON CONFLICT DO NOTHING} of a DONE
   * row and the business insert in one transaction.
   */
  FLOOR_ONE_COMMIT("floor-1c", 1, null),
  /** Inbox, {@link OneCommitConsumer}. */
  INBOX_ONE_COMMIT("inbox-1c", 1, FLOOR_ONE_COMMIT),
  /** Inbox, {@link BatchConsumer} with {@link #BATCH_SIZE} messages per call. */
  INBOX_BATCH("inbox-batch", BenchSystem.BATCH_SIZE, FLOOR),
  /** Camel's {@link JdbcOrphanLockAwareIdempotentRepository}: add, business insert, confirm. */
  CAMEL_ORPHAN_LOCK("camel-orphan-lock", 1, FLOOR),
  /** Camel's {@link JdbcMessageIdRepository}: add, business insert, confirm. */
  CAMEL_JDBC("camel-jdbc", 1, FLOOR),
  /** Spring Integration's {@link JdbcMetadataStore#putIfAbsent}, then the business insert. */
  SPRING_METADATA("spring-metadata", 1, FLOOR);

  /** Messages per call of the batch system. */
  public static final int BATCH_SIZE = 100;

  static final String INSERT_BUSINESS =
      "INSERT INTO " + BenchDatabase.BUSINESS_TABLE + " (message_id, amount) VALUES (?, ?)";

  private final String label;
  private final int batchSize;
  private final BenchSystem floor;

  BenchSystem(String label, int batchSize, BenchSystem floor) {
    this.label = label;
    this.batchSize = batchSize;
    this.floor = floor;
  }

  /** The name in CSVs, charts and on the command line. */
  public String label() {
    return label;
  }

  /** Messages handed to one {@link Driver#deliver} call. */
  public int batchSize() {
    return batchSize;
  }

  /** The floor this system's throughput is divided by; null for a floor itself. */
  public BenchSystem floor() {
    return floor;
  }

  /** The system with this label. */
  public static BenchSystem byLabel(String label) {
    for (BenchSystem s : values()) {
      if (s.label.equals(label)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown system '" + label + "'");
  }

  /**
   * Processes deliveries. Shared by all worker threads of a run, so thread-safe, like the systems
   * it wraps.
   */
  public interface Driver {
    /**
     * Delivers {@code ids} (one, or {@link #batchSize()} for the batch system).
     *
     * @return how many of them were applied (business row inserted)
     */
    int deliver(List<String> ids) throws Exception;

    /** Stops what the system started (background threads), before its pool is closed. */
    default void close() throws Exception {}

    /** What the system says about its own run (flush sizes, say), or empty. */
    default String notes() {
      return "";
    }
  }

  /** Creates the driver on {@code pool}, which holds exactly the run's connection count. */
  public Driver open(DataSource pool) throws Exception {
    switch (this) {
      case FLOOR:
        return ids -> floor(pool, ids.get(0));
      case FLOOR_ONE_COMMIT:
        return ids -> floorOneCommit(pool, ids.get(0));
      case INBOX_SINGLE:
        return inboxSingle(pool, false);
      case INBOX_SINGLE_COALESCED:
        return inboxSingle(pool, true);
      case INBOX_LEASE:
        return inboxLease(pool, false);
      case INBOX_LEASE_COALESCED:
        return inboxLease(pool, true);
      case INBOX_ONE_COMMIT:
        return inboxOneCommit(pool);
      case INBOX_BATCH:
        return inboxBatch(pool);
      case CAMEL_ORPHAN_LOCK:
        return camelOrphanLock(pool);
      case CAMEL_JDBC:
        return camelJdbc(pool);
      case SPRING_METADATA:
        return springMetadata(pool);
      default:
        throw new IllegalStateException("no driver for " + this);
    }
  }

  // ---- raw SQL floors ------------------------------------------------------------------------

  private static final String FLOOR_CLAIM =
      "INSERT INTO "
          + BenchDatabase.FLOOR_TABLE
          + " (consumer, message_id, state, attempts, lease_until, created_at, updated_at)"
          + " VALUES (?, ?, 'PROCESSING', 1, statement_timestamp() + INTERVAL '30 seconds',"
          + " statement_timestamp(), statement_timestamp())"
          + " ON CONFLICT (consumer, message_id) DO NOTHING";

  private static final String FLOOR_DONE =
      "UPDATE "
          + BenchDatabase.FLOOR_TABLE
          + " SET state = 'DONE', lease_until = NULL, updated_at = statement_timestamp()"
          + " WHERE consumer = ? AND message_id = ? AND attempts = 1 AND state = 'PROCESSING'";

  private static final String FLOOR_ONE_COMMIT_CLAIM =
      "INSERT INTO "
          + BenchDatabase.FLOOR_TABLE
          + " (consumer, message_id, state, attempts, lease_until, created_at, updated_at)"
          + " VALUES (?, ?, 'DONE', 1, NULL, statement_timestamp(), statement_timestamp())"
          + " ON CONFLICT (consumer, message_id) DO NOTHING";

  private static int floor(DataSource pool, String id) throws SQLException {
    try (Connection c = pool.getConnection()) {
      int claimed;
      try (PreparedStatement ps = c.prepareStatement(FLOOR_CLAIM)) {
        ps.setString(1, "floor");
        ps.setString(2, id);
        claimed = ps.executeUpdate();
      }
      if (claimed == 0) {
        return 0;
      }
      c.setAutoCommit(false);
      try {
        insertBusiness(c, id);
        try (PreparedStatement ps = c.prepareStatement(FLOOR_DONE)) {
          ps.setString(1, "floor");
          ps.setString(2, id);
          if (ps.executeUpdate() != 1) {
            throw new IllegalStateException("floor lost its own claim of " + id);
          }
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
      return 1;
    }
  }

  private static int floorOneCommit(DataSource pool, String id) throws SQLException {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        int claimed;
        try (PreparedStatement ps = c.prepareStatement(FLOOR_ONE_COMMIT_CLAIM)) {
          ps.setString(1, "floor-1c");
          ps.setString(2, id);
          claimed = ps.executeUpdate();
        }
        if (claimed == 1) {
          insertBusiness(c, id);
        }
        c.commit();
        return claimed;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  static void insertBusiness(Connection c, String id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_BUSINESS)) {
      ps.setString(1, id);
      ps.setLong(2, id.length());
      ps.executeUpdate();
    }
  }

  // ---- Inbox ---------------------------------------------------------------------------------

  private static int applied(Outcome outcome) {
    if (outcome.status() == Outcome.Status.APPLIED) {
      return 1;
    }
    if (outcome.status() == Outcome.Status.DUPLICATE) {
      return 0;
    }
    throw new IllegalStateException("unexpected outcome " + outcome);
  }

  private static Driver inboxSingle(DataSource pool, boolean coalescing) {
    JdbcInboxStore store = JdbcInboxStore.builder(pool).coalescing(coalescing).build();
    IdempotentConsumer consumer =
        IdempotentConsumer.builder(coalescing ? "inbox-single-coalesced" : "inbox-single", store)
            .effect(store.transactional((message, attempt, c) -> insertBusiness(c, message.id())))
            .build();
    return coalescingDriver(store, consumer);
  }

  /** Delivers one message through {@code consumer}, reporting the store's flush sizes. */
  private static Driver coalescingDriver(JdbcInboxStore store, IdempotentConsumer consumer) {
    return new Driver() {
      @Override
      public int deliver(List<String> ids) {
        return applied(consumer.consume(Message.of(ids.get(0))));
      }

      @Override
      public String notes() {
        return store
            .coalescingStats()
            .map(
                s ->
                    String.format(
                        java.util.Locale.ROOT,
                        "claims/flush %.2f, completions/flush %.2f",
                        s.claimsPerFlush(),
                        s.completionsPerFlush()))
            .orElse("");
      }
    };
  }

  private static Driver inboxLease(DataSource pool, boolean coalescing) {
    JdbcInboxStore store = JdbcInboxStore.builder(pool).coalescing(coalescing).build();
    IdempotentConsumer consumer =
        IdempotentConsumer.builder(coalescing ? "inbox-lease-coalesced" : "inbox-lease", store)
            .handler(
                (message, attempt) -> {
                  try (Connection c = pool.getConnection()) {
                    insertBusiness(c, message.id()); // autocommit, like the peers' business insert
                  }
                })
            .build();
    return coalescingDriver(store, consumer);
  }

  private static Driver inboxOneCommit(DataSource pool) {
    JdbcInboxStore store = JdbcInboxStore.builder(pool).build();
    OneCommitConsumer consumer =
        OneCommitConsumer.builder("inbox-1c", store)
            .handler((message, attempt, c) -> insertBusiness(c, message.id()))
            .build();
    return ids -> applied(consumer.consume(Message.of(ids.get(0))));
  }

  private static Driver inboxBatch(DataSource pool) {
    JdbcInboxStore store = JdbcInboxStore.builder(pool).build();
    BatchConsumer consumer =
        BatchConsumer.builder("inbox-batch", store)
            .handler(
                (messages, c) -> {
                  // One JDBC batch: the driver sends every row in one round trip.
                  try (PreparedStatement ps = c.prepareStatement(INSERT_BUSINESS)) {
                    for (Message m : messages) {
                      ps.setString(1, m.id());
                      ps.setLong(2, m.id().length());
                      ps.addBatch();
                    }
                    ps.executeBatch();
                  }
                })
            .build();
    return ids -> {
      List<Message> messages = new ArrayList<>(ids.size());
      for (String id : ids) {
        messages.add(Message.of(id));
      }
      int applied = 0;
      for (Outcome o : consumer.consume(messages)) {
        applied += applied(o);
      }
      return applied;
    };
  }

  // ---- peers ---------------------------------------------------------------------------------

  private static Driver camelOrphanLock(DataSource pool) throws Exception {
    // The context is only the repository's source of an executor for lock keep-alives; it is
    // never started, as in the repository's own tests.
    DefaultCamelContext context = new DefaultCamelContext();
    JdbcOrphanLockAwareIdempotentRepository repo =
        new JdbcOrphanLockAwareIdempotentRepository(pool, "camel-orphan-lock", context);
    // The keep-alive (one UPDATE per interval) shares the pool with the workers; with a pool as
    // small as the worker count it stalled the worker until the 30 s pool timeout, so a whole
    // window at 1 connection measured 0 msg/s. Its cost per message is nil, so it is set to fire
    // after the run rather than billing Camel a stall users would size their pool away from.
    repo.setLockMaxAgeMillis(3_600_000);
    repo.setLockKeepAliveIntervalMillis(1_200_000);
    repo.start();
    return new Driver() {
      @Override
      public int deliver(List<String> ids) throws Exception {
        return camelUnit(pool, repo, ids.get(0));
      }

      @Override
      public void close() throws Exception {
        // Otherwise its keep-alive thread outlives the run and fails on the closed pool.
        repo.stop();
        context.close();
      }
    };
  }

  private static Driver camelJdbc(DataSource pool) throws Exception {
    JdbcMessageIdRepository repo = new JdbcMessageIdRepository(pool, "camel-jdbc");
    repo.start();
    return ids -> camelUnit(pool, repo, ids.get(0));
  }

  /** What Camel's idempotent consumer does around a route: add, process, confirm. */
  private static int camelUnit(
      DataSource pool, org.apache.camel.spi.IdempotentRepository repo, String id)
      throws SQLException {
    if (!repo.add(id)) {
      return 0;
    }
    try (Connection c = pool.getConnection()) {
      insertBusiness(c, id); // autocommit: the repository has its own transactions
    }
    repo.confirm(id);
    return 1;
  }

  private static Driver springMetadata(DataSource pool) throws Exception {
    JdbcMetadataStore store = new JdbcMetadataStore(pool);
    store.afterPropertiesSet();
    store.start();
    return ids -> {
      String id = ids.get(0);
      if (store.putIfAbsent(id, "1") != null) {
        return 0;
      }
      try (Connection c = pool.getConnection()) {
        insertBusiness(c, id);
      }
      return 1;
    };
  }
}
