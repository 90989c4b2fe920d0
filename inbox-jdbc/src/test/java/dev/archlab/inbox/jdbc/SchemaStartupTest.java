package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.schema.SchemaBusyException;
import dev.archlab.inbox.jdbc.schema.SchemaMissingException;
import dev.archlab.inbox.store.BeginRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Start-up on a live table (issue 12): while one connection holds a transaction open on the inbox
 * table (a transactional handler mid-run), a starting instance's {@code createSchemaIfMissing}
 * never makes an unrelated claim wait, issues no DDL for a schema that is there, and where DDL is
 * needed and blocked gives up within its bound with a clear error. Also schema-qualified table
 * names, a database that does not exist and when the dialect is detected (issue 22, items 3, 7 and
 * 10). Runs once per database registered in {@link TestDatabases}, named after it.
 *
 * <p>Ordering is shown with futures, never with timing: every claim future must complete while the
 * holder's transaction is still open (it is rolled back only afterwards); {@link #BACKSTOP} only
 * turns a hang into a failure.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class SchemaStartupTest {

  static final Duration LEASE = Duration.ofSeconds(30);

  /** Turns a hang into a failure; never a "fast enough" threshold. */
  static final long BACKSTOP_SECONDS = 60;

  /** The database this run of the suite is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  TestDatabase database() {
    return registered.get();
  }

  /** A query counting indexes named {@code index} in the connection's current schema. */
  String indexCountSql(String index) {
    return database().indexCountSql(null, index);
  }

  /** A schema (MySQL/MariaDB: database) that does not exist. */
  String absentNamespace() {
    return "inbox_absent";
  }

  /**
   * These tests claim while another connection holds a write transaction open. On a database with
   * one writer at a time (SQLite) no claim can proceed then, by design, so the property they check
   * does not apply; without this they would be skipped or fail depending on which of the start-up
   * and the lock-waiter probe came first.
   */
  private void assumeSeveralWriters() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        database().oneWriterAtATime(),
        database().name()
            + ": one writer at a time, so a claim always waits for a held write transaction");
  }

  // ---- issue 12 --------------------------------------------------------------------------------

  @Test
  @Timeout(180)
  @DisplayName(
      "start-up with the schema present issues no DDL and never stalls a claim while a"
          + " transaction is held open")
  void startupWithSchemaPresentNeverStallsOthers() throws Exception {
    assumeSeveralWriters();
    String table = "startup_live";
    JdbcInboxStore running = database().freshStore(table);
    running.begin(new BeginRequest("holder", "h-1", LEASE, 5, null));
    StatementLog log = new StatementLog(database().dataSource());
    JdbcInboxStore starting = database().storeBuilder(log.dataSource()).table(table).build();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Connection holder = database().dataSource().getConnection()) {
      holdRow(holder, table, "holder", "h-1");
      Future<?> startup =
          pool.submit(
              () -> {
                starting.createSchemaIfMissing();
                return null;
              });
      // The claim goes in once the start-up has finished or waits for a lock itself: then, on a
      // store that queues DDL behind the holder, the claim queues behind the DDL.
      awaitEither(startup::isDone, this::someoneWaitsForALock);
      Future<Boolean> claim =
          pool.submit(
              () -> running.begin(new BeginRequest("other", "x1", LEASE, 5, null)).claimed());
      assertThat(claim.get(BACKSTOP_SECONDS, TimeUnit.SECONDS))
          .as("an unrelated claim while the holder's transaction is open")
          .isTrue();
      startup.get(BACKSTOP_SECONDS, TimeUnit.SECONDS);
      assertThat(holder.getAutoCommit()).as("the holder is still mid-transaction").isFalse();
      holder.rollback();
    } finally {
      pool.shutdownNow();
    }
    assertThat(log.ddl()).as("DDL sent for a schema that is there").isEmpty();
    assertThat(starting.schemaExists()).isTrue();
  }

  @Test
  @Timeout(180)
  @DisplayName(
      "start-up that must create an index while a transaction is held open gives up within its"
          + " bound with a clear error, and never stalls a claim")
  void startupNeedingDdlWhileBlockedNeverStallsOthers() throws Exception {
    assumeSeveralWriters();
    String table = "startup_noidx";
    String index = table + "_state_updated_idx";
    JdbcInboxStore running = database().freshStore(table);
    database().execute(database().dropIndexSql(table, index));
    running.begin(new BeginRequest("holder", "h-1", LEASE, 5, null));
    JdbcInboxStore starting =
        database()
            .storeBuilder(database().dataSource())
            .table(table)
            .schemaLockTimeout(Duration.ofMillis(50))
            .schemaCreationTimeout(Duration.ofSeconds(2))
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Connection holder = database().dataSource().getConnection()) {
      holdRow(holder, table, "holder", "h-1");
      Future<?> startup =
          pool.submit(
              () -> {
                starting.createSchemaIfMissing();
                return null;
              });
      awaitEither(startup::isDone, this::someoneWaitsForALock);
      Future<Boolean> claim =
          pool.submit(
              () -> running.begin(new BeginRequest("other", "x1", LEASE, 5, null)).claimed());
      assertThat(claim.get(BACKSTOP_SECONDS, TimeUnit.SECONDS))
          .as("an unrelated claim while the holder's transaction is open")
          .isTrue();
      if (database().indexCreationWaitsForOpenTransactions()) {
        assertThatThrownBy(() -> startup.get(BACKSTOP_SECONDS, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(SchemaBusyException.class)
            .hasMessageContaining("table '" + table + "'")
            .hasMessageContaining("index " + index)
            .hasMessageContaining("other transactions held open")
            .hasMessageContaining("Nothing was changed");
        assertThat(database().count(indexCountSql(index))).isZero();
      } else {
        startup.get(BACKSTOP_SECONDS, TimeUnit.SECONDS);
      }
      assertThat(holder.getAutoCommit()).as("the holder is still mid-transaction").isFalse();
      holder.rollback();
    } finally {
      pool.shutdownNow();
    }
    // Once the table is quiet, the same start-up creates the missing index, and only that.
    StatementLog log = new StatementLog(database().dataSource());
    database().storeBuilder(log.dataSource()).table(table).build().createSchemaIfMissing();
    assertThat(database().count(indexCountSql(index))).isEqualTo(1);
    assertThat(log.ddl()).hasSize(1).allSatisfy(sql -> assertThat(sql).contains("CREATE INDEX"));
    assertThat(running.find("other", "x1")).isPresent();
  }

  @Test
  @DisplayName("a schema creation bound shorter than the lock timeout, or none, is refused")
  void schemaTimeoutsAreValidated() {
    DataSource ds = database().dataSource();
    assertThatThrownBy(
            () ->
                JdbcInboxStore.builder(ds)
                    .schemaLockTimeout(Duration.ofSeconds(2))
                    .schemaCreationTimeout(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("schemaCreationTimeout");
    assertThatThrownBy(() -> JdbcInboxStore.builder(ds).schemaLockTimeout(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("schemaLockTimeout");
    assertThatThrownBy(() -> JdbcInboxStore.builder(ds).schemaCreationTimeout(null).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("schemaCreationTimeout");
  }

  /** Opens a transaction on {@code c} that updates one row of {@code table} and stays open. */
  static void holdRow(Connection c, String table, String consumer, String id) throws SQLException {
    c.setAutoCommit(false);
    try (var ps =
        c.prepareStatement(
            "UPDATE "
                + table
                + " SET last_error = 'mid-run' WHERE consumer = ? AND message_id = ?")) {
      ps.setString(1, consumer);
      ps.setString(2, id);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  boolean someoneWaitsForALock() {
    try {
      return database().count(database().lockWaitersSql()) > 0;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Polls until one condition holds; the bound only turns a hang into a failure. */
  static void awaitEither(BooleanSupplier a, BooleanSupplier b) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(BACKSTOP_SECONDS);
    while (!a.getAsBoolean() && !b.getAsBoolean()) {
      assertThat(System.nanoTime()).as("neither condition came true").isLessThan(until);
      Thread.sleep(5);
    }
  }

  // ---- issue 22 item 3: schema-qualified table names -------------------------------------------

  @Test
  @DisplayName("a table in a schema that does not exist: a clear SchemaMissingException, no race")
  void qualifiedTableInMissingSchema() {
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger(JdbcInboxStore.class.getName());
    Handler capture = capture(warnings);
    jul.addHandler(capture);
    try {
      String name = absentNamespace() + ".qualified_inbox";
      JdbcInboxStore s = database().storeBuilder(database().dataSource()).table(name).build();
      assertThatThrownBy(s::createSchemaIfMissing)
          .isInstanceOf(SchemaMissingException.class)
          .hasMessageContaining("'" + absentNamespace() + "'")
          .hasMessageContaining("does not exist")
          .hasMessageContaining(name);
      assertThat(s.schemaExists()).isFalse();
      assertThatThrownBy(() -> s.begin(new BeginRequest("c", "m", LEASE, 5, null)))
          .isInstanceOf(SchemaMissingException.class);
    } finally {
      jul.removeHandler(capture);
    }
    assertThat(warnings).extracting(LogRecord::getMessage).noneMatch(m -> m.contains("raced"));
  }

  @Test
  @DisplayName("the error for a bad table name says that schema.table is the qualified form")
  void badTableNameMentionsQualifiedForm() {
    assertThatThrownBy(() -> TableName.of("orders-inbox"))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("letters, digits and '_'")
        .hasMessageContaining("schema.table");
    assertThat(TableName.of("app.inbox").schemaName()).isEqualTo("app");
    assertThat(TableName.of("inbox").schemaName()).isNull();
  }

  @Test
  @DisplayName("a table in another existing schema is created there, with its index, and used")
  void qualifiedTableInExistingSchema() throws Exception {
    String ns = database().existingNamespace();
    String name = ns + ".qualified_inbox";
    database().execute("DROP TABLE IF EXISTS " + name);
    JdbcInboxStore s = database().storeBuilder(database().dataSource()).table(name).build();
    s.createSchemaIfMissing();
    assertThat(s.schemaExists()).isTrue();
    assertThat(database().count(database().indexCountSql(ns, "qualified_inbox_state_updated_idx")))
        .isEqualTo(1);
    assertThat(s.begin(new BeginRequest("q", "q-1", LEASE, 5, null)).claimed()).isTrue();
    assertThat(database().count("SELECT COUNT(*) FROM " + name)).isEqualTo(1);
    // Started again, it finds everything there and sends no DDL.
    StatementLog log = new StatementLog(database().dataSource());
    database().storeBuilder(log.dataSource()).table(name).build().createSchemaIfMissing();
    assertThat(log.ddl()).isEmpty();
    database().execute("DROP TABLE " + name);
  }

  // ---- issue 22 item 7: a database that does not exist ---------------------------------------

  @Test
  @DisplayName("a database that does not exist is StoreUnavailableException, saying so")
  void databaseThatDoesNotExist() {
    String[] login = database().missingDatabase();
    try (HikariDataSource nowhere = JdbcStoreTest.poolFor(login[0], login[1], login[2])) {
      JdbcInboxStore s = database().storeBuilder(nowhere).table("inbox").build();
      assertThatThrownBy(() -> s.begin(new BeginRequest("c", "m", LEASE, 5, null)))
          .isInstanceOfSatisfying(
              StoreUnavailableException.class,
              e ->
                  assertThat(e.reason())
                      .isEqualTo(StoreUnavailableException.Reason.DATABASE_MISSING))
          .hasMessageContaining("database does not exist");
      assertThatThrownBy(s::createSchemaIfMissing)
          .isInstanceOfSatisfying(
              StoreUnavailableException.class,
              e ->
                  assertThat(e.reason())
                      .isEqualTo(StoreUnavailableException.Reason.DATABASE_MISSING))
          .hasMessageContaining("database does not exist");
    }
    // The same through the driver alone, as a plain DataSource would report it.
    JdbcInboxStore direct =
        JdbcInboxStore.builder(driverOnly(login[0], login[1], login[2])).table("inbox").build();
    assertThatThrownBy(() -> direct.begin(new BeginRequest("c", "m", LEASE, 5, null)))
        .isInstanceOfSatisfying(
            StoreUnavailableException.class,
            e ->
                assertThat(e.reason()).isEqualTo(StoreUnavailableException.Reason.DATABASE_MISSING))
        .hasMessageContaining("database does not exist");
  }

  /** The same database reached through its driver alone, without a pool in between. */
  static DataSource driverOnly(String url, String user, String password) {
    return (DataSource)
        java.lang.reflect.Proxy.newProxyInstance(
            SchemaStartupTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return DriverManager.getConnection(url, user, password);
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  // ---- issue 22 item 10: when the dialect is detected ----------------------------------------

  @Test
  @DisplayName(
      "build() does not connect; the first call detects the dialect, and says so when it cannot")
  void dialectIsDetectedOnFirstUse() throws Exception {
    database().freshStore("startup_lazy");
    AtomicBoolean down = new AtomicBoolean(true);
    AtomicInteger connections = new AtomicInteger();
    DataSource real = database().dataSource();
    DataSource late =
        (DataSource)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    connections.incrementAndGet();
                    if (down.get()) {
                      throw new SQLException("Connection refused (injected)", "08001");
                    }
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    JdbcInboxStore s = JdbcInboxStore.builder(late).table("startup_lazy").build();
    assertThat(connections).as("connections opened by build()").hasValue(0);
    assertThatThrownBy(() -> s.begin(new BeginRequest("lazy", "l-1", LEASE, 5, null)))
        .isInstanceOfSatisfying(
            StoreUnavailableException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreUnavailableException.Reason.UNREACHABLE))
        .hasMessageContaining("unreachable")
        .hasMessageContaining("the dialect is detected on first use");
    assertThatThrownBy(s::dialect).isInstanceOf(StoreUnavailableException.class);
    down.set(false); // the database comes up: the same store detects and works
    assertThat(s.begin(new BeginRequest("lazy", "l-1", LEASE, 5, null)).claimed()).isTrue();
    assertThat(s.dialect().name()).isEqualTo(database().detectedDialectName());
  }

  static Handler capture(List<LogRecord> into) {
    return new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.INFO.intValue()) {
          into.add(record);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }

  static void exec(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
