package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InvalidConfigurationException;
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
      List.of(new PostgresDialect(), new MariaDbDialect(), new MySqlDialect(), new H2Dialect());

  private Dialects() {}

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

  /** Every built-in dialect's URL prefixes, in registry order. */
  public static List<String> urlPrefixes() {
    List<String> out = new ArrayList<>();
    for (JdbcDialect d : ALL) {
      out.addAll(d.urlPrefixes());
    }
    return List.copyOf(out);
  }

  /** The built-in dialects' product names, such as "PostgreSQL, MariaDB, MySQL, H2". */
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
