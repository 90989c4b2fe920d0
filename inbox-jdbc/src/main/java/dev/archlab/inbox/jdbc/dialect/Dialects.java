package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InvalidConfigurationException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The registry of built-in dialects: the one place that lists the supported databases. Detection
 * ({@link JdbcDialect#detect}) and tools that accept JDBC URLs (the {@code inbox} command) ask it,
 * so a new database is one line in {@link #ALL}. The dialects are immutable and shared.
 */
public final class Dialects {

  /** Every built-in dialect, in the order messages list them. */
  private static final List<JdbcDialect> ALL =
      List.of(
          new PostgresDialect(),
          new MariaDbDialect(),
          new MySqlDialect(),
          new SqliteDialect(),
          new H2Dialect());

  /** The dialect whose rules read errors no dialect claims (see {@link #readingErrorsOf}). */
  private static final JdbcDialect UNCLAIMED_ERRORS = unclaimedErrorsReader(ALL);

  private Dialects() {}

  /**
   * The one dialect in {@code dialects} that reads unclaimed errors; a wrong registry fails here.
   */
  private static JdbcDialect unclaimedErrorsReader(List<JdbcDialect> dialects) {
    List<JdbcDialect> readers =
        dialects.stream().filter(JdbcDialect::readsUnclaimedErrors).toList();
    if (readers.size() != 1) {
      throw new IllegalStateException(
          "exactly one registered dialect must read errors no dialect claims, found "
              + readers.size());
    }
    return readers.get(0);
  }

  /** Every built-in dialect. */
  public static List<JdbcDialect> all() {
    return ALL;
  }

  /** The built-in dialect whose URL prefix {@code jdbcUrl} starts with (ignoring case), if any. */
  public static Optional<JdbcDialect> forUrl(String jdbcUrl) {
    String url = JdbcDialect.lower(jdbcUrl).strip();
    for (JdbcDialect d : ALL) {
      for (String prefix : d.urlPrefixes()) {
        if (url.startsWith(prefix)) {
          return Optional.of(d);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The URL of the embedded default database in {@code directory}: the first registered dialect's
   * {@link JdbcDialect#embeddedUrl} that is present (SQLite's), or empty if none is.
   */
  public static Optional<String> embeddedUrl(Path directory) {
    for (JdbcDialect d : ALL) {
      Optional<String> url = d.embeddedUrl(directory);
      if (url.isPresent()) {
        return url;
      }
    }
    return Optional.empty();
  }

  /**
   * {@code jdbcUrl} with the settings its dialect requires added ({@link
   * JdbcDialect#withRequiredSettings}); unchanged if no registered dialect claims it.
   */
  public static String withRequiredSettings(String jdbcUrl) {
    return forUrl(jdbcUrl).map(d -> d.withRequiredSettings(jdbcUrl)).orElse(jdbcUrl);
  }

  /**
   * The registered dialect whose driver raised {@code e} (see {@link JdbcDialect#raisedByDriver}),
   * to read its vendor codes before a dialect is detected.
   */
  public static Optional<JdbcDialect> raisedBy(SQLException e) {
    for (JdbcDialect d : ALL) {
      if (d.raisedByDriver(e)) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  /**
   * The dialect whose rules read {@code e} while no dialect is detected yet (the first connection
   * failed, or none was made): the first registered dialect whose driver raised it ({@link
   * JdbcDialect#raisedByDriver}), else the first whose vendor code it carries ({@link
   * JdbcDialect#ownsVendorCode}), else the one that reads unclaimed errors ({@link
   * JdbcDialect#readsUnclaimedErrors}, H2's generic SQLState rules). Drivers are asked before
   * codes, as a code range can overlap another driver's result codes (SQLite's extended codes).
   */
  public static JdbcDialect readingErrorsOf(SQLException e) {
    Optional<JdbcDialect> byDriver = raisedBy(e);
    if (byDriver.isPresent()) {
      return byDriver.get();
    }
    for (JdbcDialect d : ALL) {
      if (d.ownsVendorCode(e)) {
        return d;
      }
    }
    return UNCLAIMED_ERRORS;
  }

  /** Every built-in dialect's URL prefixes, in registry order. */
  public static List<String> urlPrefixes() {
    List<String> out = new ArrayList<>();
    for (JdbcDialect d : ALL) {
      out.addAll(d.urlPrefixes());
    }
    return List.copyOf(out);
  }

  /** The built-in dialects' product names, such as "PostgreSQL, MariaDB, MySQL, SQLite, H2". */
  public static String productNames() {
    List<String> names = new ArrayList<>();
    for (JdbcDialect d : ALL) {
      names.add(d.productName());
    }
    return String.join(", ", names);
  }

  /** See {@link JdbcDialect#detect(Connection)}. */
  static JdbcDialect detect(Connection connection) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    String product = meta.getDatabaseProductName();
    String version = meta.getDatabaseProductVersion();
    for (JdbcDialect d : ALL) {
      if (d.recognises(product, version)) {
        return d;
      }
    }
    throw new InvalidConfigurationException(
        "no inbox dialect for database product '"
            + product
            + "'; supported: "
            + productNames()
            + " (pass a JdbcDialect explicitly to override)");
  }
}
