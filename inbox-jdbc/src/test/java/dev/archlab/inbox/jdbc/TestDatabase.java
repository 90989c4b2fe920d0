package dev.archlab.inbox.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A real database server for the tests, started once per JVM by the tests themselves, with a
 * HikariCP pool on it and every piece of database-specific SQL the shared suites need (moving
 * stored time, killing a session, listing lock waiters, filling a table). One subclass per dialect,
 * found by its name ({@code XDialect} → {@code XDatabase}, see {@link TestDatabases}); the suites
 * themselves are written once.
 */
public abstract class TestDatabase {

  /** Pool size: at least the contract suite's worker threads plus the test's own connections. */
  static final int POOL_SIZE = 16;

  /** Numbers pools, so two pools of one size are told apart in thread dumps and logs. */
  private static final java.util.concurrent.atomic.AtomicInteger POOLS =
      new java.util.concurrent.atomic.AtomicInteger();

  private HikariDataSource pool;

  /**
   * The name it is registered under in {@link TestDatabases}: its dialect's name (postgresql,
   * mariadb, mysql, …).
   */
  public abstract String name();

  /** JDBC URL of the test database. */
  public abstract String jdbcUrl();

  public String user() {
    return null;
  }

  public String password() {
    return null;
  }

  /** An SQL expression: column {@code col} moved back by a bound number of microseconds. */
  abstract String minusMicros(String col);

  /** Session SQL that sets a time zone far from UTC, to show it does not matter. */
  abstract String farTimeZoneSql();

  /** Session SQL that bounds row-lock waits to {@code millis}, or null if set per transaction. */
  abstract String lockTimeoutSql(long millis);

  /** A JDBC URL of this kind where no server listens. */
  abstract String unreachableUrl();

  /** A JDBC URL/user/password triple the server refuses. */
  abstract String[] refusedLogin();

  /** A query returning the id of the session (backend, connection) it runs on. */
  abstract String sessionIdSql();

  /**
   * SQL that ends the session {@code id} from another connection, as a server-side kill or a lost
   * client would: its open transaction is rolled back and its connection is dead. Returns when the
   * session is gone (or its socket is shut).
   */
  abstract String killSessionSql(long id);

  /** A query returning the session's current lock wait limit, in the database's own unit. */
  abstract String sessionLockTimeoutSql();

  // ---- what the shared suites ask of each database ---------------------------------------------

  /** Fills {@code table} with {@code rows} DONE records of consumer 'old', updated a day ago. */
  abstract void fillDone(String table, int rows) throws SQLException;

  /** An SQL literal of a fixed past time, in the type the database stores times as. */
  String pastTimeLiteral() {
    return "TIMESTAMP '2020-01-01 00:00:00'";
  }

  /** Rows for the store suite's prune-under-load test; a slow database may lower it. */
  int pruneRows() {
    return 1_000_000;
  }

  /**
   * Random sequences the model test runs; a database behind a network round trip runs fewer, as
   * each action costs more there.
   */
  int modelSeeds() {
    return 200;
  }

  /** A query counting sessions that wait for a lock right now. */
  abstract String lockWaitersSql();

  /**
   * A query counting indexes named {@code index} (as created, unquoted) in schema {@code
   * namespace}, or in the connection's current one when it is null.
   */
  abstract String indexCountSql(String namespace, String index);

  /** Drops index {@code index} of {@code table}. */
  abstract String dropIndexSql(String table, String index);

  /** A schema (MySQL/MariaDB: database) that exists and the test user may create tables in. */
  abstract String existingNamespace() throws SQLException;

  /** URL, user and password of a database on this server that does not exist. */
  abstract String[] missingDatabase();

  /** Whether creating an index must wait for a transaction open on the table. */
  boolean indexCreationWaitsForOpenTransactions() {
    return true;
  }

  /**
   * Whether the database lets one writing transaction at a time exist (SQLite: one write lock per
   * file), so a statement that writes waits while any transaction is open, whatever row it touches.
   */
  boolean oneWriterAtATime() {
    return false;
  }

  /** The name of the dialect detection picks for this server. */
  String detectedDialectName() {
    return name();
  }

  /** A dialect every store of these tests must use instead of detecting one; null to detect. */
  dev.archlab.inbox.jdbc.dialect.JdbcDialect forcedDialect() {
    return null;
  }

  /** A store builder on {@code dataSource}, with the {@link #forcedDialect()} if there is one. */
  public JdbcInboxStoreBuilder storeBuilder(DataSource dataSource) {
    JdbcInboxStoreBuilder builder = JdbcInboxStore.builder(dataSource);
    dev.archlab.inbox.jdbc.dialect.JdbcDialect forced = forcedDialect();
    return forced == null ? builder : builder.dialect(forced);
  }

  /** Ends the session {@code c} runs on, from another connection; see {@link #killSessionSql}. */
  public void killSessionOf(Connection c) throws SQLException {
    long id;
    try (Statement st = c.createStatement();
        var rs = st.executeQuery(sessionIdSql())) {
      rs.next();
      id = rs.getLong(1);
    }
    execute(killSessionSql(id));
  }

  /** The lock wait limit of the session behind {@code c}, as text. */
  public String sessionLockTimeout(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        var rs = st.executeQuery(sessionLockTimeoutSql())) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The shared pool. */
  public synchronized DataSource dataSource() {
    if (pool == null) {
      pool = newPool(POOL_SIZE);
    }
    return pool;
  }

  /** A separate pool of the given size, for tests that need to control connection counts. */
  public HikariDataSource newPool(int size) {
    return newPool(size, null);
  }

  /**
   * A separate pool whose connections run {@code initSql} first (a session time zone, a lock
   * timeout).
   */
  public HikariDataSource newPool(int size, String initSql) {
    return newPool(size, initSql, Duration.ofSeconds(10));
  }

  /**
   * A separate pool of {@code size} connections whose borrowers give up after {@code
   * connectionTimeout}, for tests that must show nobody ever waits for a connection that long.
   */
  public HikariDataSource newPool(int size, String initSql, Duration connectionTimeout) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl());
    if (initSql != null) {
      config.setConnectionInitSql(initSql);
    }
    if (user() != null) {
      config.setUsername(user());
      config.setPassword(password());
    }
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(connectionTimeout.toMillis());
    config.setPoolName("inbox-test-" + name() + "-" + size + "-" + POOLS.incrementAndGet());
    return new HikariDataSource(config);
  }

  /** A store on the shared pool with a table of its own, created empty. */
  public JdbcInboxStore freshStore(String table) throws SQLException {
    JdbcInboxStore store = storeBuilder(dataSource()).table(table).build();
    store.createSchemaIfMissing();
    execute("DELETE FROM " + table);
    return store;
  }

  /** Moves every stored timestamp of {@code table} back, as if the clock moved forward. */
  public void shiftTime(String table, Duration by) {
    String sql =
        "UPDATE "
            + table
            + " SET created_at = "
            + minusMicros("created_at")
            + ", updated_at = "
            + minusMicros("updated_at")
            + ", lease_until = "
            + minusMicros("lease_until");
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      long micros = by.toNanos() / 1000;
      ps.setLong(1, micros);
      ps.setLong(2, micros);
      ps.setLong(3, micros);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not shift time on " + name(), e);
    }
  }

  public void execute(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  public long count(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * A fixture on {@code table}, created and emptied now, whose time moves by shifting the table's
   * stored timestamps back: for the database clock, the same as moving forward.
   */
  public dev.archlab.inbox.testkit.StoreFixture fixture(String table) {
    JdbcInboxStore store;
    try {
      store = freshStore(table);
    } catch (SQLException e) {
      throw new IllegalStateException("could not empty " + table + " on " + name(), e);
    }
    return new dev.archlab.inbox.testkit.StoreFixture() {
      @Override
      public dev.archlab.inbox.store.InboxStore store() {
        return store;
      }

      @Override
      public void advanceTime(Duration duration) {
        shiftTime(table, duration);
      }
    };
  }
}
