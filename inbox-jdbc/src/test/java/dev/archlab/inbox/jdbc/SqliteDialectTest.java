package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import dev.archlab.inbox.store.BeginRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only SQLite has: its file and its connection settings. Each way a file cannot be used gets
 * its own clear error, a lock held past the busy timeout is retried and then reported, and a
 * connection without {@code BEGIN IMMEDIATE} or a busy timeout is refused before it is used.
 */
class SqliteDialectTest {

  static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static BeginRequest request(String id) {
    return new BeginRequest("sqlite", id, LEASE, 5, null);
  }

  private static JdbcInboxStore store(DataSource ds) {
    return JdbcInboxStore.builder(ds).build();
  }

  @Test
  void aMissingDirectoryIsNamed() {
    Path file = dir.resolve("absent").resolve("inbox.db");
    JdbcInboxStore store = store(SqliteDialect.dataSource(file));
    assertThatThrownBy(() -> store.begin(request("m-1")))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("the directory '" + file.getParent() + "' does not exist");
    assertThat(file.getParent()).doesNotExist();
  }

  @Test
  void aFileThatIsNotADatabaseIsNamedAndLeftAlone() throws IOException {
    Path file = dir.resolve("notes.db");
    String text = "shopping list: milk, bread, and a great deal more text than a header holds\n";
    Files.writeString(file, text.repeat(20));
    JdbcInboxStore store = store(SqliteDialect.dataSource(file));
    assertThatThrownBy(() -> store.begin(request("m-1")))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("the file is not an SQLite database");
    assertThat(Files.readString(file)).isEqualTo(text.repeat(20));
  }

  @Test
  void aReadOnlyFileIsNamedAndItsRecordsKept() throws Exception {
    Path file = dir.resolve("inbox.db");
    JdbcInboxStore writer = store(SqliteDialect.dataSource(file));
    writer.createSchemaIfMissing();
    assertThat(writer.begin(request("kept")).claimed()).isTrue();
    readOnly(file);
    try {
      JdbcInboxStore store = store(SqliteDialect.dataSource(file));
      assertThatThrownBy(() -> store.begin(request("m-2")))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("read-only");
      assertThat(store.find("sqlite", "kept")).isPresent();
    } finally {
      writable(file);
    }
  }

  @Test
  void aReadOnlyDirectoryIsNamed() throws Exception {
    Path sub = Files.createDirectories(dir.resolve("ro"));
    Path file = sub.resolve("inbox.db");
    store(SqliteDialect.dataSource(file)).createSchemaIfMissing(); // its connections are closed
    readOnly(sub);
    try {
      JdbcInboxStore store = store(SqliteDialect.dataSource(file));
      assertThatThrownBy(() -> store.begin(request("m-1")))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("the directory '" + sub + "' is read-only");
    } finally {
      writable(sub);
    }
  }

  @Test
  void aLockHeldPastTheBusyTimeoutIsRetriedThenReportedAndNothingIsLost() throws Exception {
    Path file = dir.resolve("inbox.db");
    DataSource files = SqliteDialect.dataSource(file, Duration.ofMillis(200));
    store(files).createSchemaIfMissing();
    AtomicInteger connections = new AtomicInteger();
    DataSource counting =
        (DataSource)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    connections.incrementAndGet();
                  }
                  try {
                    return method.invoke(files, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    JdbcInboxStore store = JdbcInboxStore.builder(counting).transientRetries(2).build();
    assertThat(store.begin(request("before")).claimed()).isTrue(); // detects the dialect
    try (Connection holder = files.getConnection()) {
      holder.setAutoCommit(false); // BEGIN IMMEDIATE: the file's write lock, until rollback
      int before = connections.get();
      assertThatThrownBy(() -> store.begin(request("m-1")))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("stayed locked by another connection or process")
          .hasMessageContaining("SQLITE_BUSY");
      assertThat(connections.get() - before).as("the first try and two retries").isEqualTo(3);
      holder.rollback();
    }
    assertThat(store.begin(request("m-1")).claimed()).isTrue();
    assertThat(store.find("sqlite", "before")).isPresent();
  }

  @Test
  void aConnectionWithDeferredTransactionsIsRefused() {
    Path file = dir.resolve("inbox.db");
    JdbcInboxStore store =
        store(driverManager("jdbc:sqlite:" + file + "?journal_mode=WAL&busy_timeout=5000"));
    assertThatThrownBy(() -> store.begin(request("m-1")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("begins its transactions DEFERRED")
        .hasMessageContaining("transaction_mode=IMMEDIATE");
  }

  @Test
  void aConnectionWithoutABusyTimeoutIsRefused() {
    Path file = dir.resolve("inbox.db");
    JdbcInboxStore store =
        store(
            driverManager(
                "jdbc:sqlite:"
                    + file
                    + "?journal_mode=WAL&transaction_mode=IMMEDIATE&busy_timeout=0"));
    assertThatThrownBy(() -> store.begin(request("m-1")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("no busy timeout");
  }

  @Test
  void theDataSourceHelperSetsWalImmediateAndTheBusyTimeout() throws Exception {
    DataSource ds = SqliteDialect.dataSource(dir.resolve("inbox.db"), Duration.ofMillis(1234));
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      assertThat(dev.archlab.inbox.jdbc.dialect.JdbcDialect.detect(c))
          .isInstanceOf(SqliteDialect.class);
      try (var rs = st.executeQuery("PRAGMA journal_mode")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
      }
      try (var rs = st.executeQuery("PRAGMA busy_timeout")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1234);
      }
      assertThat(
              c.unwrap(org.sqlite.SQLiteConnection.class)
                  .getConnectionConfig()
                  .getTransactionMode()
                  .name())
          .isEqualTo("IMMEDIATE");
    }
    assertThatThrownBy(() -> SqliteDialect.dataSource(dir.resolve("x.db"), Duration.ZERO))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("busyTimeout");
  }

  /** Connections straight from the driver with {@code url}'s settings, as a pool would open. */
  private static DataSource driverManager(String url) {
    return (DataSource)
        java.lang.reflect.Proxy.newProxyInstance(
            SqliteDialectTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return java.sql.DriverManager.getConnection(url);
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  /**
   * Makes {@code path} read-only for this process: permissions first, and for root (whom
   * permissions do not stop) the immutable attribute. Reports the test as skipped if neither works.
   */
  private static void readOnly(Path path) throws Exception {
    Files.setPosixFilePermissions(
        path, PosixFilePermissions.fromString(Files.isDirectory(path) ? "r-xr-xr-x" : "r--r--r--"));
    if (Files.isWritable(path)) {
      chattr("+i", path);
    }
    Assumptions.assumeFalse(
        Files.isWritable(path), "cannot make " + path + " read-only for this process");
  }

  private static void writable(Path path) throws Exception {
    if (!Files.isWritable(path)) {
      chattr("-i", path);
    }
    Files.setPosixFilePermissions(
        path, PosixFilePermissions.fromString(Files.isDirectory(path) ? "rwxr-xr-x" : "rw-r--r--"));
  }

  private static void chattr(String flag, Path path) throws Exception {
    try {
      Process p =
          new ProcessBuilder("chattr", flag, path.toString()).redirectErrorStream(true).start();
      p.waitFor();
    } catch (IOException noChattr) {
      // no chattr on this machine: the caller's check reports the test as skipped
    }
  }
}
