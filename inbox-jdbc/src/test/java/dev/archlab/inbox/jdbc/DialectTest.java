package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.jdbc.dialect.AbstractMySqlDialect;
import dev.archlab.inbox.jdbc.dialect.Dialects;
import dev.archlab.inbox.jdbc.dialect.H2Dialect;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.dialect.LockTimeoutPlan;
import dev.archlab.inbox.jdbc.dialect.MariaDbDialect;
import dev.archlab.inbox.jdbc.dialect.MySqlDialect;
import dev.archlab.inbox.jdbc.dialect.PostgresDialect;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import dev.archlab.inbox.jdbc.dialect.Statements;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** The dialects without a database: detection rules, error classification, lock timeouts. */
class DialectTest {

  // ---- detection -------------------------------------------------------------------------------

  /** A connection whose metadata reports {@code product} and {@code version}, and nothing else. */
  static Connection reporting(String product, String version) {
    DatabaseMetaData meta =
        (DatabaseMetaData)
            Proxy.newProxyInstance(
                DialectTest.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "getDatabaseProductName":
                      return product;
                    case "getDatabaseProductVersion":
                      return version;
                    default:
                      throw new UnsupportedOperationException(method.getName());
                  }
                });
    return (Connection)
        Proxy.newProxyInstance(
            DialectTest.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getMetaData")) {
                return meta;
              }
              if (method.getName().equals("close")) {
                return null;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  static Stream<Arguments> products() {
    return Stream.of(
        Arguments.of("PostgreSQL", "17.11", "postgresql"),
        Arguments.of("MariaDB", "11.4.5-MariaDB", "mariadb"),
        // Older MariaDB servers and drivers report "MySQL"; the version string tells them apart.
        Arguments.of("MySQL", "5.5.5-10.11.6-MariaDB-0+deb12u1", "mariadb"),
        Arguments.of("MySQL", "8.0.36", "mysql"),
        Arguments.of("SQLite", "3.51.1", "sqlite"),
        Arguments.of("H2", "2.5.252 (2025-06-30)", "h2"));
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @MethodSource("products")
  @DisplayName("the dialect is chosen from the product name, and the version for MySQL")
  void detection(String product, String version, String expected) throws SQLException {
    JdbcDialect d = JdbcDialect.detect(reporting(product, version));
    assertThat(d.name()).isEqualTo(expected);
    assertThat(d)
        .isSameAs(
            Dialects.all().stream().filter(r -> r.name().equals(expected)).findAny().orElseThrow());
    if (d instanceof AbstractMySqlDialect) {
      // MariaDB returns inserted rows; MySQL reads them back and claims a batch one by one.
      Statements s = d.statements(TableName.of("inbox"));
      assertThat(d)
          .isExactlyInstanceOf(
              expected.equals("mariadb") ? MariaDbDialect.class : MySqlDialect.class);
      assertThat(s.insertReturnsRecord()).isEqualTo(expected.equals("mariadb"));
      assertThat(s.supportsBatchInsert()).isEqualTo(expected.equals("mariadb"));
    }
  }

  @Test
  @DisplayName("an unknown product is refused with an error naming it")
  void unknownProduct() {
    assertThatThrownBy(() -> JdbcDialect.detect(reporting("Oracle", "23ai")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("'Oracle'")
        .hasMessageContaining("PostgreSQL, MariaDB, MySQL, SQLite, H2");
    assertThatThrownBy(() -> JdbcDialect.detect(reporting(null, null)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("'null'");
    // Through a store, on first use.
    JdbcInboxStore store =
        JdbcInboxStore.builder(dataSourceOf(reporting("Oracle", "23ai"))).build();
    assertThatThrownBy(store::dialect)
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("'Oracle'");
  }

  @Test
  @DisplayName("an explicit dialect is used without asking the database")
  void explicitDialectNeedsNoDetection() {
    JdbcDialect mysql = new MySqlDialect();
    JdbcInboxStore store = JdbcInboxStore.builder(unreachable()).dialect(mysql).build();
    assertThat(store.dialect()).isSameAs(mysql);
    assertThat(store.schemaSql()).contains("utf8mb4_0900_bin");
  }

  static DataSource dataSourceOf(Connection c) {
    return (DataSource)
        Proxy.newProxyInstance(
            DialectTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return c;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  static DataSource unreachable() {
    return (DataSource)
        Proxy.newProxyInstance(
            DialectTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              throw new SQLException("no database in this test", "08001");
            });
  }

  // ---- the registry ----------------------------------------------------------------------------

  @Test
  @DisplayName("the registry lists every database once; each URL prefix maps to its dialect")
  void registry() {
    assertThat(Dialects.all())
        .extracting(JdbcDialect::name)
        .containsExactly("postgresql", "mariadb", "mysql", "sqlite", "h2");
    assertThat(Dialects.urlPrefixes())
        .containsExactly(
            "jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:sqlite:", "jdbc:h2:");
    for (JdbcDialect d : Dialects.all()) {
      for (String prefix : d.urlPrefixes()) {
        assertThat(Dialects.forUrl(prefix + "//db/app")).containsSame(d);
        assertThat(Dialects.forUrl(prefix.toUpperCase(Locale.ROOT) + "//db/app")).containsSame(d);
      }
      assertThat(DialectTest.class.getClassLoader().getResource(d.schemaResource()))
          .as("shipped DDL of " + d)
          .isNotNull();
    }
    assertThat(Dialects.forUrl("jdbc:oracle:thin:@db:1521/app")).isEmpty();
    assertThat(Dialects.forUrl("postgres://db/app")).isEmpty();
    assertThat(Dialects.forUrl(null)).isEmpty();
  }

  @Test
  @DisplayName(
      "before detection the registry picks whose rules read an error: driver, then vendor code,"
          + " then the generic rules")
  void errorsBeforeDetectionAreReadByTheRegistry() {
    // A pool's copy of a MariaDB server error keeps only the vendor code (1045: access denied).
    SQLException refused = new SQLException("Access denied for user", "28000", 1045);
    assertThat(Dialects.readingErrorsOf(refused)).isInstanceOf(MariaDbDialect.class);
    assertThat(Dialects.readingErrorsOf(refused).classify(refused))
        .isEqualTo(SqlErrorKind.ACCESS_DENIED);
    // SQLite's extended result codes overlap MySQL's range (1555: primary key), here on a wrapper
    // around the xerial driver's exception: the driver that raised it wins over the code.
    SQLException sqliteKey =
        new SQLException(
            "wrapped",
            null,
            SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY.code,
            new SQLiteException(
                "UNIQUE constraint failed", SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY));
    assertThat(sqliteKey.getErrorCode()).isBetween(1000, 4999);
    assertThat(Dialects.readingErrorsOf(sqliteKey)).isInstanceOf(SqliteDialect.class);
    // H2's own code 90013 (database not found): nobody else claims it, so the generic reader does.
    SQLException h2Missing = new SQLException("Database not found", "90013", 90013);
    assertThat(Dialects.readingErrorsOf(h2Missing)).isInstanceOf(H2Dialect.class);
    assertThat(Dialects.readingErrorsOf(h2Missing).classify(h2Missing))
        .isEqualTo(SqlErrorKind.DATABASE_MISSING);
    SQLException unknown = new SQLException("connection refused", "08001");
    assertThat(Dialects.readingErrorsOf(unknown)).isInstanceOf(H2Dialect.class);
    assertThat(Dialects.all().stream().filter(JdbcDialect::readsUnclaimedErrors))
        .as("exactly one dialect reads unclaimed errors")
        .hasSize(1);
  }

  @Test
  @DisplayName("each dialect names its database's own default isolation level")
  void isolationLevels() {
    assertThat(PG.defaultIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
    assertThat(H2.defaultIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
    assertThat(MARIADB.defaultIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
    assertThat(MYSQL.defaultIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
    assertThat(new SqliteDialect().defaultIsolation())
        .isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
  }

  // ---- error classification --------------------------------------------------------------------

  static final JdbcDialect PG = new PostgresDialect();
  static final JdbcDialect MARIADB = new MariaDbDialect();
  static final JdbcDialect MYSQL = new MySqlDialect();
  static final JdbcDialect H2 = new H2Dialect();
  static final List<JdbcDialect> ALL = List.of(PG, MARIADB, MYSQL, H2);

  /** One row: SQLState, vendor code, and what each dialect (PG, MariaDB, MySQL, H2) makes of it. */
  record Row(
      String state,
      int code,
      SqlErrorKind pg,
      SqlErrorKind maria,
      SqlErrorKind mysql,
      SqlErrorKind h2) {
    SqlErrorKind expected(JdbcDialect d) {
      return d == PG ? pg : d == MARIADB ? maria : d == MYSQL ? mysql : h2;
    }
  }

  static Row all(String state, int code, SqlErrorKind kind) {
    return new Row(state, code, kind, kind, kind, kind);
  }

  static Row mysqlOnly(String state, int code, SqlErrorKind kind, SqlErrorKind elsewhere) {
    return new Row(state, code, elsewhere, kind, kind, elsewhere);
  }

  static Stream<Arguments> errors() {
    SqlErrorKind other = SqlErrorKind.OTHER;
    return Stream.of(
            // Serialization failures and deadlocks: retried by the store.
            all("40001", 0, SqlErrorKind.SERIALIZATION), // PG/H2 serialization, MySQL deadlock
            all("40P01", 0, SqlErrorKind.SERIALIZATION), // PostgreSQL deadlock
            mysqlOnly("40001", 1213, SqlErrorKind.SERIALIZATION, SqlErrorKind.SERIALIZATION),
            mysqlOnly("HY000", 1213, SqlErrorKind.SERIALIZATION, other),
            // Lock timeouts: the one-commit mode's IN_FLIGHT.
            mysqlOnly("HY000", 1205, SqlErrorKind.LOCK_TIMEOUT, other),
            new Row("55P03", 0, SqlErrorKind.LOCK_TIMEOUT, other, other, other),
            new Row("HYT00", 50200, other, other, other, SqlErrorKind.LOCK_TIMEOUT),
            new Row("HYT00", 0, other, other, other, SqlErrorKind.LOCK_TIMEOUT),
            // The server going away.
            new Row("57P01", 0, SqlErrorKind.CONNECTION, other, other, other),
            new Row("57P02", 0, SqlErrorKind.CONNECTION, other, other, other),
            new Row("57P03", 0, SqlErrorKind.CONNECTION, other, other, other),
            new Row("53300", 0, SqlErrorKind.CONNECTION, other, other, other),
            all("08000", -1, SqlErrorKind.CONNECTION), // MariaDB driver: socket error
            all("08001", 0, SqlErrorKind.CONNECTION),
            all("08006", 0, SqlErrorKind.CONNECTION),
            all("08S01", 0, SqlErrorKind.CONNECTION), // MySQL: communications link failure
            mysqlOnly("70100", 1927, SqlErrorKind.CONNECTION, other), // MariaDB: killed
            new Row("90121", 90121, other, other, other, SqlErrorKind.CONNECTION),
            new Row("90067", 90067, other, other, other, SqlErrorKind.CONNECTION),
            // Logins refused.
            all("28000", 0, SqlErrorKind.ACCESS_DENIED),
            all("28P01", 0, SqlErrorKind.ACCESS_DENIED),
            mysqlOnly("28000", 1045, SqlErrorKind.ACCESS_DENIED, SqlErrorKind.ACCESS_DENIED),
            mysqlOnly("42000", 1044, SqlErrorKind.ACCESS_DENIED, other),
            // The database, or the schema qualifying the table, does not exist.
            all("3D000", 0, SqlErrorKind.DATABASE_MISSING), // PostgreSQL: no such database
            mysqlOnly("42000", 1049, SqlErrorKind.DATABASE_MISSING, other), // unknown database
            new Row("90013", 90013, other, other, other, SqlErrorKind.DATABASE_MISSING),
            new Row("90146", 90146, other, other, other, SqlErrorKind.DATABASE_MISSING),
            all("3F000", 0, SqlErrorKind.NAMESPACE_MISSING), // PostgreSQL: no such schema
            new Row("90079", 90079, other, other, other, SqlErrorKind.NAMESPACE_MISSING),
            // Table or column missing.
            all("42P01", 0, SqlErrorKind.SCHEMA_MISSING),
            all("42S02", 0, SqlErrorKind.SCHEMA_MISSING),
            all("42S22", 0, SqlErrorKind.SCHEMA_MISSING),
            mysqlOnly("42S02", 1146, SqlErrorKind.SCHEMA_MISSING, SqlErrorKind.SCHEMA_MISSING),
            mysqlOnly("42S22", 1054, SqlErrorKind.SCHEMA_MISSING, SqlErrorKind.SCHEMA_MISSING),
            new Row("42703", 0, SqlErrorKind.SCHEMA_MISSING, other, other, other),
            // Duplicate keys.
            all("23505", 0, SqlErrorKind.UNIQUE_VIOLATION),
            mysqlOnly("23000", 1062, SqlErrorKind.UNIQUE_VIOLATION, other),
            // Anything else, including a CHECK violation and a syntax error.
            all("23514", 0, other),
            all("42601", 0, other),
            mysqlOnly("23000", 4025, other, other),
            all(null, 0, other))
        .flatMap(row -> ALL.stream().map(d -> Arguments.of(d, row)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("errors")
  @DisplayName("SQL errors are classified by SQLState and vendor code")
  void classify(JdbcDialect dialect, Row row) {
    SQLException e = new SQLException("injected", row.state(), row.code());
    assertThat(dialect.classify(e)).isEqualTo(row.expected(dialect));
  }

  @Test
  @DisplayName("connection exceptions without a SQLState are connection failures everywhere")
  void connectionExceptionTypes() {
    for (JdbcDialect d : ALL) {
      assertThat(d.classify(new SQLNonTransientConnectionException("gone")))
          .isEqualTo(SqlErrorKind.CONNECTION);
      assertThat(d.classify(new SQLTransientConnectionException("pool timeout")))
          .isEqualTo(SqlErrorKind.CONNECTION);
    }
  }

  // ---- lock timeouts ---------------------------------------------------------------------------

  @Test
  @DisplayName("each dialect bounds a claim's lock wait its own way, and restores what it set")
  void lockTimeoutPlans() {
    Duration t = Duration.ofMillis(300);
    assertThat(PG.claimLockTimeout(t))
        .isEqualTo(new LockTimeoutPlan(List.of("SET LOCAL lock_timeout = 300"), "", List.of()));
    assertThat(MARIADB.claimLockTimeout(t))
        .isEqualTo(
            new LockTimeoutPlan(
                List.of(), "SET STATEMENT innodb_lock_wait_timeout = 1 FOR ", List.of()));
    LockTimeoutPlan mysql = MYSQL.claimLockTimeout(Duration.ofMillis(2_001));
    assertThat(mysql.before()).singleElement().asString().endsWith("innodb_lock_wait_timeout = 3");
    assertThat(mysql.after())
        .containsExactly("SET SESSION innodb_lock_wait_timeout = @inbox_saved_lock_wait");
    LockTimeoutPlan h2 = H2.claimLockTimeout(t);
    assertThat(h2.before()).last().isEqualTo("SET LOCK_TIMEOUT 300");
    assertThat(h2.after()).containsExactly("SET LOCK_TIMEOUT @inbox_saved_lock_timeout");
  }

  @Test
  @DisplayName("each dialect bounds a DDL statement's lock wait, and restores what it set")
  void ddlLockTimeoutPlans() {
    Duration t = Duration.ofMillis(300);
    assertThat(PG.ddlLockTimeout(t))
        .isEqualTo(new LockTimeoutPlan(List.of("SET LOCAL lock_timeout = 300"), "", List.of()));
    // MariaDB counts whole seconds; below one second the DDL does not wait at all.
    assertThat(MARIADB.ddlLockTimeout(t))
        .isEqualTo(
            new LockTimeoutPlan(List.of(), "SET STATEMENT lock_wait_timeout = 0 FOR ", List.of()));
    assertThat(MARIADB.ddlLockTimeout(Duration.ofMillis(2_500)).insertPrefix())
        .isEqualTo("SET STATEMENT lock_wait_timeout = 2 FOR ");
    LockTimeoutPlan mysql = MYSQL.ddlLockTimeout(t);
    assertThat(mysql.before()).singleElement().asString().endsWith(" lock_wait_timeout = 1");
    assertThat(mysql.after())
        .containsExactly("SET SESSION lock_wait_timeout = @inbox_saved_ddl_wait");
    LockTimeoutPlan h2 = H2.ddlLockTimeout(t);
    assertThat(h2.before()).last().isEqualTo("SET LOCK_TIMEOUT 300");
    assertThat(h2.after()).containsExactly("SET LOCK_TIMEOUT @inbox_saved_lock_timeout");
  }

  /** A dialect with only the required methods: no lock timeout of its own. */
  static final class MinimalDialect extends JdbcDialect {
    private final JdbcDialect sql = new H2Dialect();

    @Override
    public String name() {
      return "minimal";
    }

    @Override
    public String productName() {
      return "Minimal";
    }

    @Override
    public List<String> urlPrefixes() {
      return List.of("jdbc:minimal:");
    }

    @Override
    public String now() {
      return sql.now();
    }

    @Override
    public String nowPlusMicros() {
      return sql.nowPlusMicros();
    }
  }

  @Test
  @DisplayName("lockTimeout on a dialect that cannot honour it is refused, naming the dialect")
  void lockTimeoutRefusedByADialectWithoutOne() {
    JdbcDialect minimal = new MinimalDialect();
    assertThatThrownBy(() -> minimal.claimLockTimeout(Duration.ofSeconds(1)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("'minimal'");
    JdbcInboxStore store = JdbcInboxStore.builder(unreachable()).dialect(minimal).build();
    OneCommitConsumer.Builder builder =
        OneCommitConsumer.builder("ledger", store)
            .handler((m, a, conn) -> {})
            .lockTimeout(Duration.ofSeconds(1));
    assertThatThrownBy(builder::build)
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("lockTimeout")
        .hasMessageContaining("'minimal'");
    // Without lockTimeout the same consumer builds.
    assertThat(
            OneCommitConsumer.builder("ledger", store).handler((m, a, conn) -> {}).build().name())
        .isEqualTo("ledger");
    assertThatThrownBy(
            () ->
                OneCommitConsumer.builder("ledger", store)
                    .handler((m, a, conn) -> {})
                    .lockTimeout(Duration.ofDays(2))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("PT48H");
  }
}
