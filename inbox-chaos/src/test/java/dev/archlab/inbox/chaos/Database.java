package dev.archlab.inbox.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

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

  /** Stops the server, keeps it down for {@code down}, starts it again on the same port. */
  void restart(Duration down) throws Exception;

  @Override
  void close();

  default Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), user(), password());
  }

  /** The {@code --db --user --password} arguments of {@code inbox simulate}. */
  default java.util.List<String> cliArgs() {
    java.util.List<String> args = new java.util.ArrayList<>();
    args.add("--db");
    args.add(url());
    args.add("--user");
    args.add(user());
    if (!password().isEmpty()) {
      args.add("--password");
      args.add(password());
    }
    return args;
  }
}
