package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.dialect.Dialects;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** URL resolution and failure classification of the shared database options. */
class DbOptionsTest {

  @AfterEach
  void restoreEnvironment() {
    DbOptions.environment = System.getenv();
  }

  /**
   * MariaDB Connector/J, the only MySQL-protocol driver shipped, refuses {@code jdbc:mysql:} unless
   * the URL names {@code permitMysqlScheme}; the parameters already there are kept.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:mysql://db:3306/app | jdbc:mysql://db:3306/app?permitMysqlScheme",
        "jdbc:mysql://db/app?useSSL=false | jdbc:mysql://db/app?useSSL=false&permitMysqlScheme",
        "jdbc:mysql://db/app?a=1&b=2 | jdbc:mysql://db/app?a=1&b=2&permitMysqlScheme",
        "jdbc:mysql://db/app? | jdbc:mysql://db/app?permitMysqlScheme",
        "jdbc:mysql://db/app?a=1& | jdbc:mysql://db/app?a=1&permitMysqlScheme",
        "JDBC:MySQL://db/app | jdbc:mysql://db/app?permitMysqlScheme",
        "jdbc:mysql://db/app?permitMysqlScheme | jdbc:mysql://db/app?permitMysqlScheme",
        "jdbc:mysql://db/app?x=1&permitMysqlScheme=true |"
            + " jdbc:mysql://db/app?x=1&permitMysqlScheme=true",
        "jdbc:mariadb://db/app?a=1 | jdbc:mariadb://db/app?a=1",
        "jdbc:postgresql://db/app | jdbc:postgresql://db/app",
      })
  void mysqlUrlsAreRewrittenForTheMariaDbDriver(String given, String expected) throws Exception {
    DbOptions options = new DbOptions();
    options.url = given;
    DbOptions.environment = Map.of();
    String resolved = options.resolvedUrl();
    assertThat(resolved).isEqualTo(expected);
    if (expected.startsWith("jdbc:m")) {
      assertThat(new org.mariadb.jdbc.Driver().acceptsURL(resolved)).isTrue();
    }
  }

  /**
   * A {@code jdbc:sqlite:} URL gets the WAL journal, {@code BEGIN IMMEDIATE} and a busy timeout
   * where it does not name them; what it names is kept (the store refuses a wrong value itself).
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:sqlite:/d/i.db | jdbc:sqlite:/d/i.db?journal_mode=WAL&transaction_mode=IMMEDIATE"
            + "&busy_timeout=10000",
        "jdbc:sqlite:/d/i.db?busy_timeout=500 | jdbc:sqlite:/d/i.db?busy_timeout=500"
            + "&journal_mode=WAL&transaction_mode=IMMEDIATE",
        "jdbc:sqlite:/d/i.db?transaction_mode=DEFERRED& | jdbc:sqlite:/d/i.db?"
            + "transaction_mode=DEFERRED&journal_mode=WAL&busy_timeout=10000",
        "JDBC:SQLITE:/d/i.db?journal_mode=WAL&transaction_mode=IMMEDIATE&busy_timeout=1 |"
            + " JDBC:SQLITE:/d/i.db?journal_mode=WAL&transaction_mode=IMMEDIATE&busy_timeout=1",
      })
  void sqliteUrlsGetTheSettingsTheyLack(String given, String expected) {
    DbOptions options = new DbOptions();
    options.url = given;
    DbOptions.environment = Map.of();
    assertThat(options.resolvedUrl()).isEqualTo(expected);
    assertThat(DbOptions.defaultIsolation(expected)).isEqualTo("TRANSACTION_SERIALIZABLE");
  }

  @Test
  void theEmbeddedDefaultIsTheSqliteFileInDotInbox() {
    DbOptions.environment = Map.of();
    DbOptions options = new DbOptions();
    assertThat(options.isEmbeddedDefault()).isTrue();
    assertThat(options.resolvedUrl())
        .startsWith(
            "jdbc:sqlite:"
                + java.nio.file.Path.of(".inbox").toAbsolutePath().normalize().resolve("inbox.db")
                + "?")
        .contains("journal_mode=WAL")
        .contains("transaction_mode=IMMEDIATE")
        .contains("busy_timeout=10000");
  }

  @Test
  void mysqlUrlFromTheEnvironmentIsRewrittenToo() {
    DbOptions.environment = Map.of(DbOptions.ENV_URL, "jdbc:mysql://db/app?useSSL=false");
    assertThat(new DbOptions().resolvedUrl())
        .isEqualTo("jdbc:mysql://db/app?useSSL=false&permitMysqlScheme");
  }

  @Test
  void everyRegisteredUrlPrefixIsAcceptedAndListed() {
    DbOptions.environment = Map.of();
    for (String prefix : Dialects.urlPrefixes()) {
      DbOptions options = new DbOptions();
      options.url = prefix + "//db/app";
      assertThat(options.resolvedUrl()).startsWith(prefix);
    }
    assertThat(DbOptions.expectedPrefixes())
        .isEqualTo("jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:, jdbc:sqlite: or jdbc:h2:");
  }

  @Test
  void theDbHelpListsTheRegisteredPrefixes() {
    Cli.Result r = Cli.run("status", "--help");
    String help = r.out().replaceAll("\\s+", " ");
    assertThat(help)
        .contains("starting with one of: " + String.join(", ", Dialects.urlPrefixes()))
        .contains("(env INBOX_DB_URL;");
  }

  @Test
  void thePoolIsolationIsTheDialectsDefault() {
    assertThat(DbOptions.defaultIsolation("jdbc:postgresql://db/app"))
        .isEqualTo("TRANSACTION_READ_COMMITTED");
    assertThat(DbOptions.defaultIsolation("jdbc:h2:mem:x")).isEqualTo("TRANSACTION_READ_COMMITTED");
    assertThat(DbOptions.defaultIsolation("jdbc:mariadb://db/app"))
        .isEqualTo("TRANSACTION_REPEATABLE_READ");
    assertThat(DbOptions.defaultIsolation("JDBC:MySQL://db/app"))
        .isEqualTo("TRANSACTION_REPEATABLE_READ");
  }

  @Test
  void refusedLoginIsSqlStateClass28OrTheStoresClassification() {
    assertThat(DbOptions.loginRefused(new SQLException("password authentication", "28P01")))
        .isTrue();
    assertThat(DbOptions.loginRefused(new SQLException("Access denied", "28000", 1045))).isTrue();
    // HikariCP's timeout wraps the driver's error.
    assertThat(
            DbOptions.loginRefused(
                new java.sql.SQLTransientConnectionException(
                    "inbox-cli - Connection is not available",
                    "08001",
                    new SQLException("Wrong user name or password", "28000"))))
        .isTrue();
    // The store's classification decides, by its typed reason, never by the message text.
    assertThat(
            DbOptions.loginRefused(
                new StoreUnavailableException(
                    StoreUnavailableException.Reason.LOGIN_REFUSED, "inbox status failed", null)))
        .isTrue();
    assertThat(DbOptions.loginRefused(new SQLException("Connection refused", "08001"))).isFalse();
    assertThat(
            DbOptions.loginRefused(
                new StoreUnavailableException(
                    StoreUnavailableException.Reason.UNREACHABLE,
                    "inbox begin failed: database unreachable (not: refused the login)",
                    null)))
        .isFalse();
    assertThat(
            DbOptions.loginRefused(
                new StoreUnavailableException("database refused the login, says the text", null)))
        .isFalse();
  }
}
