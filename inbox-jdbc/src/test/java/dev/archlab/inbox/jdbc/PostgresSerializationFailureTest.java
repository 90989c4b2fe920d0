package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What only PostgreSQL can show, apart from the suites every database runs ({@link JdbcStoreTest}
 * and the others registered through {@link TestDatabases}): a real serialization failure. Skipped,
 * without starting the server, when {@value TestDatabases#PROPERTY} leaves PostgreSQL out.
 */
class PostgresSerializationFailureTest {

  static final String TABLE = JdbcStoreTest.TABLE;

  JdbcInboxStore store;

  TestDatabase database() {
    return PostgresDatabase.get();
  }

  @BeforeEach
  void freshTable() throws SQLException {
    TestDatabases.assumeSelected("postgresql");
    store = database().freshStore(TABLE);
  }

  BeginResult begin(String consumer, String id) {
    return store.begin(new BeginRequest(consumer, id, JdbcStoreTest.LEASE, 5, null));
  }

  /**
   * A real serialization failure: on a pool whose transactions are REPEATABLE READ, the store's
   * fenced complete waits for another transaction that updates the same row; when that one commits,
   * PostgreSQL refuses the complete with SQLState 40001 ("could not serialize access due to
   * concurrent update"). The store retries it once, with a logged warning, and the retry wins.
   */
  @Test
  @Timeout(60)
  @DisplayName("a real serialization failure (40001) is retried with a warning, and succeeds")
  void realSerializationFailureIsRetried() throws Exception {
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Logger log = Logger.getLogger(JdbcInboxStore.class.getName());
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
              warnings.add(record);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(capture);
    ExecutorService completer = Executors.newSingleThreadExecutor();
    try (HikariDataSource repeatableRead =
            database().newPool(2, "SET default_transaction_isolation = 'repeatable read'");
        Connection other = database().dataSource().getConnection()) {
      JdbcInboxStore strict =
          database().storeBuilder(repeatableRead).table(TABLE).transientRetries(3).build();
      Claim claim = begin("serial", "s-1").claim();
      other.setAutoCommit(false);
      try (Statement st = other.createStatement()) {
        st.executeUpdate(
            "UPDATE " + TABLE + " SET last_error = 'touched' WHERE message_id = 's-1'");
      }
      Future<InboxRecord> done = completer.submit(() -> strict.complete(claim, null));
      awaitLockWaiter();
      other.commit();
      other.setAutoCommit(true);
      InboxRecord r = done.get(30, TimeUnit.SECONDS);
      assertThat(r.state()).isEqualTo(RecordState.DONE);
      assertThat(r.lastError()).isEqualTo("touched");
    } finally {
      completer.shutdownNow();
      log.removeHandler(capture);
    }
    assertThat(warnings)
        .extracting(LogRecord::getMessage)
        .anySatisfy(m -> assertThat(m).contains("inbox complete").contains("SQLState 40001"));
  }

  /** Waits until some backend waits for a row lock (the complete, behind the other update). */
  private void awaitLockWaiter() throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (database().count("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        == 0) {
      assertThat(System.nanoTime()).as("a backend waiting for the row lock").isLessThan(until);
      Thread.sleep(10);
    }
  }
}
