package dev.archlab.inbox.jdbc;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * The one list of databases the shared suites run on: every {@code @ParameterizedClass} suite of
 * this module takes its databases from {@link #selected()}, so registering a {@link TestDatabase}
 * here is all it takes to run every suite on it.
 *
 * <p>The system property {@value #PROPERTY} (a comma-separated list of names, for example {@code
 * -Dinbox.test.databases=postgresql,h2}) runs the suites on a subset; absent or blank, it selects
 * every registered database. An unknown name fails every suite rather than silently running
 * nothing. Registration is lazy: a server is started only when a test of a selected database first
 * asks for it, so an unselected database never starts; each fixture stops its own server when the
 * JVM exits.
 */
final class TestDatabases {

  /** The system property naming the databases to run on. */
  static final String PROPERTY = "inbox.test.databases";

  /** Every database the suites know, in the order they run: adding one is one line here. */
  private static final List<Registered> ALL =
      List.of(
          new Registered("postgresql", PostgresDatabase::get),
          new Registered("mariadb", MariaDbDatabase::get),
          new Registered("mysql-dialect-on-mariadb", MySqlDialectOnMariaDb::get),
          new Registered("h2", H2Database::get),
          new Registered("sqlite", SqliteDatabase::get));

  private TestDatabases() {}

  /**
   * A registered database: its name (what {@value #PROPERTY} lists and what the suites show in
   * their display names) and how to start it, called only when a test first needs it.
   */
  record Registered(String name, Supplier<TestDatabase> starter) {

    /** The started fixture; the first call starts its server, later calls return the same one. */
    TestDatabase get() {
      TestDatabase database = starter.get();
      if (!database.name().equals(name)) {
        throw new IllegalStateException(
            "registered as " + name + " but the fixture calls itself " + database.name());
      }
      return database;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Every registered database, selected or not. */
  static List<Registered> all() {
    return ALL;
  }

  /** The databases the suites run on: those {@value #PROPERTY} names, or all of them. */
  static List<Registered> selected() {
    Set<String> wanted = wantedNames();
    if (wanted.isEmpty()) {
      return ALL;
    }
    return ALL.stream().filter(r -> wanted.contains(r.name())).toList();
  }

  /** Whether the database registered as {@code name} is among the {@link #selected()} ones. */
  static boolean isSelected(String name) {
    return selected().stream().anyMatch(r -> r.name().equals(name));
  }

  /**
   * For a test written for one database: reports it as skipped, with the reason, when {@value
   * #PROPERTY} leaves that database out, before anything starts its server.
   */
  static void assumeSelected(String name) {
    Assumptions.assumeTrue(
        isSelected(name), name + " is not among the databases selected by -D" + PROPERTY);
  }

  private static Set<String> wantedNames() {
    String value = System.getProperty(PROPERTY, "").trim();
    if (value.isEmpty()) {
      return Set.of();
    }
    Set<String> wanted =
        Arrays.stream(value.split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toCollection(LinkedHashSet::new));
    Set<String> known = ALL.stream().map(Registered::name).collect(Collectors.toSet());
    List<String> unknown = wanted.stream().filter(n -> !known.contains(n)).toList();
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          PROPERTY
              + " names unknown databases "
              + unknown
              + "; registered: "
              + ALL.stream().map(Registered::name).toList());
    }
    return wanted;
  }
}
