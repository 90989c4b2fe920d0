package dev.archlab.inbox.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.Callable;

/**
 * A real database server started by a chaos test, listening on 127.0.0.1 only, that can be
 * restarted on the same port with its data kept.
 */
interface Database extends AutoCloseable {

  /** {@code postgresql} or {@code mariadb}, as the report prints it. */
  String name();

  /** A URL without credentials, as the consumer processes get it. */
  String url();

  String user();

  String password();

  /**
   * Stops the server, calls {@code whileDown}, then starts the server again on the same port, also
   * when {@code whileDown} threw. {@code whileDown} decides how long the outage lasts: it returns
   * once it has seen what it waits for. Returns what it returned.
   */
  <T> T restart(Callable<T> whileDown) throws Exception;

  /** The URL the consumer processes get: {@link #url()}, tagged where the server can tell. */
  default String consumerUrl() {
    return url();
  }

  @Override
  void close();

  default Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), user(), password());
  }

  /** The {@code --db --user --password} arguments of {@code inbox simulate}. */
  default java.util.List<String> cliArgs() {
    java.util.List<String> args = new java.util.ArrayList<>();
    args.add("--db");
    args.add(consumerUrl());
    args.add("--user");
    args.add(user());
    if (!password().isEmpty()) {
      args.add("--password");
      args.add(password());
    }
    return args;
  }
}
