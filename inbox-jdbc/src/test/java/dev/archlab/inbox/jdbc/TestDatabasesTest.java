package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.jdbc.dialect.Dialects;
import dev.archlab.inbox.jdbc.dialect.H2Dialect;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The test registry is derived from {@link Dialects}: every registered dialect has a fixture found
 * by convention, so none runs untested. Looks fixtures up only; starts no database.
 */
class TestDatabasesTest {

  /** A dialect the registry does not know and the tests give no fixture. */
  static final class OrphanDialect extends H2Dialect {}

  /** A dialect whose class name breaks the naming convention. */
  static final class H2Unconventional extends H2Dialect {}

  static Stream<Named<JdbcDialect>> registeredDialects() {
    return Dialects.all().stream().map(d -> Named.of(d.name(), d));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("registeredDialects")
  @DisplayName("every registered dialect has a test fixture named after its class")
  void everyDialectHasAFixture(JdbcDialect dialect) {
    String expected =
        "dev.archlab.inbox.jdbc."
            + dialect.getClass().getSimpleName().replaceFirst("Dialect$", "Database");

    TestDatabases.Registered registered = TestDatabases.registered(dialect);

    assertThat(TestDatabases.fixtureClassName(dialect)).isEqualTo(expected);
    assertThat(registered.name()).isEqualTo(dialect.name());
  }

  @Test
  @DisplayName("the suites' databases are the registered dialects, in their order and names")
  void registryFollowsDialects() {
    assertThat(TestDatabases.all())
        .extracting(TestDatabases.Registered::name)
        .containsExactlyElementsOf(Dialects.all().stream().map(JdbcDialect::name).toList());
  }

  @Test
  @DisplayName("a dialect without a fixture fails, naming the class the convention looked for")
  void missingFixtureFails() {
    assertThatThrownBy(() -> TestDatabases.registered(new OrphanDialect()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "dialect h2 has no test fixture dev.archlab.inbox.jdbc.OrphanDatabase: every dialect"
                + " must run the shared suites — see 'Adding a database'");
  }

  @Test
  @DisplayName("a dialect class not named ...Dialect fails rather than guessing a fixture")
  void unconventionalDialectNameFails() {
    assertThatThrownBy(() -> TestDatabases.registered(new H2Unconventional()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not end in 'Dialect'")
        .hasMessageContaining("Adding a database");
  }
}
