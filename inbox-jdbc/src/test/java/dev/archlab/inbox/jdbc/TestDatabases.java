package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.jdbc.dialect.Dialects;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * The databases the shared suites run on: one per dialect registered in {@link Dialects}, in its
 * order, named as the dialect names itself. Every {@code @ParameterizedClass} suite of this module
 * takes its databases from {@link #selected()}, so registering a dialect is all it takes to run
 * every suite on it — and a dialect cannot be registered untested.
 *
 * <p>The fixture is found by convention: dialect class {@code XDialect} has its fixture in class
 * {@code dev.archlab.inbox.jdbc.XDatabase}, a {@link TestDatabase} with a static no-argument {@code
 * get()}. A registered dialect without one fails every suite with a message naming the class it
 * looked for.
 *
 * <p>The system property {@value #PROPERTY} (a comma-separated list of names, for example {@code
 * -Dinbox.test.databases=postgresql,h2}) runs the suites on a subset; absent or blank, it selects
 * every registered database. An unknown name fails every suite rather than silently running
 * nothing. Fixtures are looked up without being initialised and {@code get()} is called only when a
 * test of a selected database first asks for it, so an unselected database never starts; each
 * fixture stops its own server when the JVM exits.
 */
final class TestDatabases {

  /** The system property naming the databases to run on. */
  static final String PROPERTY = "inbox.test.databases";

  /** Where fixtures live: this package. */
  static final String FIXTURE_PACKAGE = TestDatabases.class.getPackageName();

  private static final String DIALECT_SUFFIX = "Dialect";
  private static final String FIXTURE_SUFFIX = "Database";

  private TestDatabases() {}

  /**
   * A registered database: its name (the dialect's; what {@value #PROPERTY} lists and what the
   * suites show in their display names) and how to start it, called only when a test first needs
   * it.
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

  /**
   * Every registered database, selected or not: one per {@link Dialects#all()} entry, in its order.
   *
   * @throws IllegalStateException if a dialect has no fixture (see the class comment)
   */
  static List<Registered> all() {
    // Recomputed per call rather than held in a static field: a missing fixture must fail each
    // caller with its message, not once with an ExceptionInInitializerError and then obscurely.
    return Dialects.all().stream().map(TestDatabases::registered).toList();
  }

  /**
   * The registration of {@code dialect}: its name and its fixture's {@code get()}, not yet called.
   *
   * @throws IllegalStateException if the convention finds no fixture for it
   */
  static Registered registered(JdbcDialect dialect) {
    Method get = fixtureGetter(dialect);
    return new Registered(dialect.name(), () -> start(get));
  }

  /**
   * The fixture class the convention asks of {@code dialect}: {@code XDialect} → {@code XDatabase}.
   */
  static String fixtureClassName(JdbcDialect dialect) {
    String dialectClass = dialect.getClass().getSimpleName();
    if (!dialectClass.endsWith(DIALECT_SUFFIX)) {
      throw new IllegalStateException(
          "dialect "
              + dialect.name()
              + " is class "
              + dialect.getClass().getName()
              + ", whose name does not end in '"
              + DIALECT_SUFFIX
              + "', so no test fixture can be named after it: see 'Adding a database'");
    }
    String stem = dialectClass.substring(0, dialectClass.length() - DIALECT_SUFFIX.length());
    return FIXTURE_PACKAGE + "." + stem + FIXTURE_SUFFIX;
  }

  private static Method fixtureGetter(JdbcDialect dialect) {
    String fixture = fixtureClassName(dialect);
    Class<?> type;
    try {
      // Not initialised: a fixture's static state may start its server.
      type = Class.forName(fixture, false, TestDatabases.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "dialect "
              + dialect.name()
              + " has no test fixture "
              + fixture
              + ": every dialect must run the shared suites — see 'Adding a database'",
          e);
    }
    if (!TestDatabase.class.isAssignableFrom(type)) {
      throw new IllegalStateException(
          "test fixture " + fixture + " of dialect " + dialect.name() + " is no TestDatabase");
    }
    try {
      Method get = type.getDeclaredMethod("get");
      if (!Modifier.isStatic(get.getModifiers())
          || !TestDatabase.class.isAssignableFrom(get.getReturnType())) {
        throw new NoSuchMethodException("get() is not static or returns no TestDatabase");
      }
      return get;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(
          "test fixture "
              + fixture
              + " of dialect "
              + dialect.name()
              + " needs a static get() returning the started TestDatabase",
          e);
    }
  }

  private static TestDatabase start(Method get) {
    try {
      return (TestDatabase) get.invoke(null);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException("could not start " + get.getDeclaringClass(), e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot call " + get, e);
    }
  }

  /** The databases the suites run on: those {@value #PROPERTY} names, or all of them. */
  static List<Registered> selected() {
    List<Registered> all = all();
    Set<String> wanted = wantedNames(all);
    if (wanted.isEmpty()) {
      return all;
    }
    return all.stream().filter(r -> wanted.contains(r.name())).toList();
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

  private static Set<String> wantedNames(List<Registered> all) {
    String value = System.getProperty(PROPERTY, "").trim();
    if (value.isEmpty()) {
      return Set.of();
    }
    Set<String> wanted =
        Arrays.stream(value.split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toCollection(LinkedHashSet::new));
    List<String> known = all.stream().map(Registered::name).toList();
    List<String> unknown = wanted.stream().filter(n -> !known.contains(n)).toList();
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          PROPERTY + " names unknown databases " + unknown + "; registered: " + known);
    }
    return wanted;
  }
}
