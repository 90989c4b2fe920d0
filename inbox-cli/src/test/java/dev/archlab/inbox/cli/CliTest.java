package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command run in-process: every command, its exit codes and its one-line errors. */
class CliTest {

  @TempDir static Path dir;

  static String h2;

  @BeforeAll
  static void noEnvironment() {
    DbOptions.environment = Map.of();
    h2 = "jdbc:h2:file:" + dir.resolve("cli") + ";AUTO_SERVER=TRUE";
  }

  @AfterAll
  static void restoreEnvironment() {
    DbOptions.environment = System.getenv();
  }

  static void assertOneLineError(Cli.Result r, int code, String contains) {
    assertThat(r.code()).as(r.toString()).isEqualTo(code);
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err()).as(r.toString()).startsWith("inbox: ").contains(contains);
    assertThat(r.err()).doesNotContain("\tat ");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "demo",
        "simulate",
        "status",
        "list",
        "show",
        "release",
        "retry-dead",
        "prune",
        "ui",
        "migrate"
      })
  void everyCommandHasHelpWithExamples(String command) {
    Cli.Result r = Cli.run(command, "--help");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("Usage: inbox " + command).contains("Examples:");
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertOneLineError(Cli.run("frobnicate"), 2, "frobnicate");
    assertOneLineError(Cli.run("status", "--no-such-option"), 2, "--no-such-option");
    assertOneLineError(Cli.run(), 2, "missing command");
  }

  @Test
  void badDurationIsAUsageError() {
    assertOneLineError(
        Cli.run("prune", "--db", h2, "--older-than", "seven days"), 2, "invalid duration");
    assertOneLineError(Cli.run("status", "--db", h2, "--retention", "5x"), 2, "invalid duration");
  }

  @Test
  void blankOrOverlongIdIsAUsageError() {
    Cli.run("migrate", "--db", h2);
    assertOneLineError(Cli.run("show", "--db", h2, "billing", "   "), 2, "must not be blank");
    assertOneLineError(
        Cli.run("show", "--db", h2, "billing", "x".repeat(300)), 2, "the limit is 255");
    assertOneLineError(Cli.run("release", "--db", h2, " ", "m-1"), 2, "invalid consumer name");
  }

  @Test
  void malformedUrlAndTableNameAreUsageErrors() {
    assertOneLineError(Cli.run("status", "--db", "postgres://x"), 2, "invalid JDBC URL");
    assertOneLineError(
        Cli.run("status", "--db", h2, "--table", "inbox; DROP TABLE x"), 2, "table name");
  }

  @Test
  void refusedConfigurationIsAUsageError() {
    assertOneLineError(
        Cli.run("prune", "--db", h2, "--older-than", "12h", "--redelivery-window", "1d"),
        2,
        "must be longer than the broker redelivery window");
    assertOneLineError(Cli.run("simulate", "--db", h2, "--crash-rate", "1.5"), 2, "--crash-rate");
  }

  @Test
  void unreachableDatabaseIsARuntimeFailure() {
    assertOneLineError(
        Cli.run("status", "--db", "jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=1"),
        1,
        "unreachable");
  }

  @Test
  void wrongCredentialsAreARuntimeFailure() {
    String url = EmbeddedPostgres.bareUrl();
    assertOneLineError(
        Cli.run("status", "--db", url, "--user", "no_such_role", "--password", "x"),
        1,
        "refused the login");
  }

  /**
   * The pool names its isolation level (to dodge HikariCP's -1 after a failed first check), so the
   * named level must be the one the database would have chosen by itself.
   */
  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "h2"})
  void poolIsolationIsTheDatabasesOwnDefault(String database) throws Exception {
    String url =
        database.equals("h2")
            ? "jdbc:h2:file:" + dir.resolve("isolation") + ";AUTO_SERVER=TRUE"
            : EmbeddedPostgres.url();
    DbOptions options = new DbOptions();
    options.url = url;
    int own;
    try (java.sql.Connection raw = java.sql.DriverManager.getConnection(url)) {
      own = raw.getTransactionIsolation();
    }
    try (com.zaxxer.hikari.HikariDataSource ds = options.dataSource(1);
        java.sql.Connection pooled = ds.getConnection()) {
      assertThat(pooled.getTransactionIsolation()).isEqualTo(own);
    }
  }

  /**
   * HikariCP learns the default isolation from its first connection; if that connection fails the
   * check with a connection error (a backend terminated at that moment, as in the chaos runs), a
   * pool left to detect it keeps -1 and refuses every later connection. The CLI's pool must outlive
   * that first failure. The fault is injected into the first real PostgreSQL connection.
   */
  @Test
  void poolSurvivesAFirstConnectionThatDiesDuringItsIsolationCheck() throws Exception {
    String url = EmbeddedPostgres.url();
    DbOptions options = new DbOptions();
    options.url = url;
    com.zaxxer.hikari.HikariConfig config = options.poolConfig(1);
    java.util.concurrent.atomic.AtomicBoolean failedOnce =
        new java.util.concurrent.atomic.AtomicBoolean();
    config.setDataSource(dyingOnFirstIsolationCheck(url, failedOnce));
    try (com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource(config)) {
      for (int i = 0; i < 3; i++) {
        try (java.sql.Connection c = ds.getConnection();
            java.sql.Statement st = c.createStatement();
            java.sql.ResultSet rs = st.executeQuery("SELECT 1")) {
          assertThat(rs.next()).isTrue();
        } catch (java.sql.SQLException e) {
          // The first borrow may fail with the injected fault; later ones must not.
          assertThat(i).as("borrow %d failed: %s", i, e).isZero();
        }
      }
    }
    assertThat(failedOnce).as("the fault was injected").isTrue();
  }

  /** Real connections, except that the first one's getTransactionIsolation dies like a cut. */
  private static javax.sql.DataSource dyingOnFirstIsolationCheck(
      String url, java.util.concurrent.atomic.AtomicBoolean failedOnce) {
    org.postgresql.ds.PGSimpleDataSource real = new org.postgresql.ds.PGSimpleDataSource();
    real.setURL(url);
    return (javax.sql.DataSource)
        java.lang.reflect.Proxy.newProxyInstance(
            CliTest.class.getClassLoader(),
            new Class<?>[] {javax.sql.DataSource.class},
            (proxy, method, args) -> {
              Object result;
              try {
                result = method.invoke(real, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
              if (!(result instanceof java.sql.Connection)) {
                return result;
              }
              java.sql.Connection connection = (java.sql.Connection) result;
              return java.lang.reflect.Proxy.newProxyInstance(
                  CliTest.class.getClassLoader(),
                  new Class<?>[] {java.sql.Connection.class},
                  (p, m, a) -> {
                    if (m.getName().equals("getTransactionIsolation")
                        && failedOnce.compareAndSet(false, true)) {
                      connection.close();
                      throw new java.sql.SQLException(
                          "An I/O error occurred while sending to the backend.", "08006");
                    }
                    try {
                      return m.invoke(connection, a);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
            });
  }

  @Test
  void missingTableBeforeMigrateIsARuntimeFailure() {
    String fresh = "jdbc:h2:file:" + dir.resolve("fresh") + ";AUTO_SERVER=TRUE";
    assertOneLineError(Cli.run("status", "--db", fresh), 1, "run 'inbox migrate' first");
    assertOneLineError(Cli.run("list", "--db", fresh, "--state", "DEAD"), 1, "inbox migrate");
    Cli.Result migrated = Cli.run("migrate", "--db", fresh);
    assertThat(migrated.code()).as(migrated.toString()).isZero();
    assertThat(migrated.out()).contains("created");
    assertThat(Cli.run("migrate", "--db", fresh).out()).contains("up to date");
    assertThat(Cli.run("status", "--db", fresh).code()).isZero();
  }

  @Test
  void verboseAddsTheStackTrace() {
    Cli.Result r = Cli.run("status", "--verbose", "--db", "jdbc:h2:file:" + dir.resolve("v"));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("inbox migrate").contains("\tat ");
  }

  @Test
  void environmentVariablesSelectTheDatabase() {
    DbOptions.environment = Map.of(DbOptions.ENV_URL, "jdbc:postgresql://127.0.0.1:1/env");
    try {
      assertOneLineError(Cli.run("status"), 1, "unreachable");
    } finally {
      DbOptions.environment = Map.of();
    }
  }

  @Test
  void demoAsJson() {
    String url = "jdbc:h2:file:" + dir.resolve("demo") + ";AUTO_SERVER=TRUE";
    Cli.Result r = Cli.run("demo", "--json", "--db", url);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out().strip()).startsWith("{").endsWith("}");
    assertThat(r.out()).contains("\"verdict\":\"HELD\"").doesNotContain("\"passed\":false");
    assertThat(r.out().split("\"passed\":true", -1)).hasSize(9);
  }

  @Test
  void operatorCommandsOnPostgres() throws Exception {
    String url = EmbeddedPostgres.url();
    String[] db = {"--db", url, "--user", "postgres", "--table", "ops_inbox"};
    assertThat(Cli.run(concat(new String[] {"migrate"}, db)).code()).isZero();

    Cli.Result sim =
        Cli.run(
            concat(
                new String[] {
                  "simulate",
                  "--messages",
                  "300",
                  "--duplicates",
                  "2",
                  "--workers",
                  "4",
                  "--crash-rate",
                  "0.1",
                  "--lease",
                  "200ms",
                  "--seed",
                  "7"
                },
                db));
    assertThat(sim.code()).as(sim.toString()).isZero();
    assertThat(sim.out())
        .contains("EXACTLY ONE EFFECT PER ID")
        .contains("distinct 300")
        // Refused completions are counted (how many depends on the machine: a handler slower
        // than the 200 ms lease is taken over), so only the line is checked here.
        .containsPattern("(?m)^\\s+lease lost\\s+\\d+\\s+\\(completions refused");

    // A poison record and a stuck one, made through the store the commands look at.
    org.postgresql.ds.PGSimpleDataSource pg = new org.postgresql.ds.PGSimpleDataSource();
    pg.setUrl(url);
    pg.setUser("postgres");
    JdbcInboxStore store = JdbcInboxStore.builder(pg).table("ops_inbox").build();
    store.markDead(
        store.begin(new BeginRequest("ops", "poison-1", Duration.ofMinutes(5), 5, null)).claim(),
        "cannot parse");
    store.begin(new BeginRequest("ops", "stuck-1", Duration.ofMinutes(5), 5, null));

    Cli.Result status = Cli.run(concat(new String[] {"status"}, db));
    assertThat(status.code()).as(status.toString()).isZero();
    assertThat(status.out()).contains("ops").contains("sim");

    Cli.Result dead = Cli.run(concat(new String[] {"list", "--state", "dead"}, db));
    assertThat(dead.out()).contains("poison-1").contains("cannot parse").contains("1 record(s)");

    Cli.Result show = Cli.run(concat(new String[] {"show", "ops", "stuck-1"}, db));
    assertThat(show.out()).contains("state:        PROCESSING").contains("(in ");
    assertThat(Cli.run(concat(new String[] {"show", "ops", "nothing"}, db)).code()).isEqualTo(1);

    Cli.Result release = Cli.run(concat(new String[] {"release", "ops", "stuck-1"}, db));
    assertThat(release.code()).as(release.toString()).isZero();
    assertThat(
            store.begin(new BeginRequest("ops", "stuck-1", Duration.ofMinutes(5), 5, null)).kind())
        .isEqualTo(dev.archlab.inbox.store.BeginResult.Kind.TAKEN_OVER);
    assertThat(Cli.run(concat(new String[] {"release", "ops", "poison-1"}, db)).code())
        .isEqualTo(1);

    Cli.Result retry = Cli.run(concat(new String[] {"retry-dead", "ops", "poison-1"}, db));
    assertThat(retry.out()).contains("1 DEAD record(s)");
    assertThat(store.find("ops", "poison-1")).isEmpty();
    assertThat(
            store
                .begin(new BeginRequest("ops", "poison-1", Duration.ofMinutes(5), 5, null))
                .claimed())
        .isTrue();

    Cli.Result dry = Cli.run(concat(new String[] {"prune", "--older-than", "2d", "--dry-run"}, db));
    assertThat(dry.out()).contains("would delete 0");
    assertThat(store.list(RecordState.DONE, "sim", 1000)).hasSize(300);
  }

  @Test
  void simulatePoisonEndsDeadWithoutEffectsAndSkewedClocksChangeNothing() {
    String url = "jdbc:h2:file:" + dir.resolve("poison") + ";AUTO_SERVER=TRUE";
    Cli.Result r =
        Cli.run(
            "simulate",
            "--db",
            url,
            "--messages",
            "200",
            "--duplicates",
            "1",
            "--workers",
            "3",
            "--crash-rate",
            "0",
            "--poison",
            "5",
            "--max-attempts",
            "2",
            "--clock-offset",
            "-5m",
            "--seed",
            "3");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("DEAD ids 5 (planted poison 5, other 0)")
        .contains("effects                 195   distinct 195")
        .contains("EXACTLY ONE EFFECT PER ID");
    assertOneLineError(
        Cli.run("simulate", "--db", url, "--messages", "3", "--poison", "4"), 2, "--poison");
  }

  @Test
  void simulateWaitsOutALostConnectionButNotOtherErrors() throws Exception {
    java.io.StringWriter err = new java.io.StringWriter();
    java.util.concurrent.atomic.AtomicInteger tries =
        new java.util.concurrent.atomic.AtomicInteger();
    DatabaseRetries.untilAvailable(
        new java.io.PrintWriter(err, true),
        "creating the schema",
        () -> {
          if (tries.incrementAndGet() < 3) {
            throw new java.sql.SQLException("terminating connection", "57P01");
          }
        });
    assertThat(tries).hasValue(3);
    assertThat(err.toString().lines()).hasSize(2).allMatch(l -> l.contains("retrying"));

    tries.set(0);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                DatabaseRetries.untilAvailable(
                    new java.io.PrintWriter(new java.io.StringWriter(), true),
                    "creating the schema",
                    () -> {
                      tries.incrementAndGet();
                      throw new java.sql.SQLException("permission denied", "42501");
                    }))
        .hasMessageContaining("permission denied");
    assertThat(tries).hasValue(1);
  }

  // ---- simulate: failing fast at start ---------------------------------------------------------

  /** Wall-clock seconds of {@code run}. */
  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  @Test
  @Timeout(60)
  void simulateWithARefusedLoginFailsAtOnceWithOneLine() {
    String url = EmbeddedPostgres.bareUrl();
    long started = System.nanoTime();
    Cli.Result r =
        Cli.run(
            "simulate",
            "--db",
            url,
            "--user",
            "no_such_role",
            "--password",
            "x",
            "--messages",
            "10");
    // One attempt, no retry loop: a retry would first print its "waiting up to" line.
    assertOneLineError(r, 1, "refused the login");
    assertThat(r.err()).as(r.toString()).doesNotContain("waiting up to");
    // Waiting for the database never waits out a wrong password.
    r =
        Cli.run(
            "simulate",
            "--db",
            url,
            "--user",
            "no_such_role",
            "--password",
            "x",
            "--wait-for-db",
            "30s");
    assertOneLineError(r, 1, "refused the login");
    assertThat(r.err()).as(r.toString()).doesNotContain("waiting up to");
  }

  @Test
  @Timeout(60)
  void simulateOnAnUnreachableDatabaseFailsAtOnceUnlessToldToWait() {
    String url = "jdbc:postgresql://127.0.0.1:1/nowhere";
    Cli.Result r = Cli.run("simulate", "--db", url, "--messages", "10");
    // At once = one attempt: a retry loop would first print its "waiting up to" line.
    assertOneLineError(r, 1, "unreachable");
    assertThat(r.err()).as(r.toString()).doesNotContain("waiting up to");

    long started = System.nanoTime();
    r = Cli.run("simulate", "--db", url, "--messages", "10", "--wait-for-db", "1500ms");
    double took = seconds(started);
    assertThat(r.code()).as(r.toString()).isEqualTo(1);
    assertThat(r.err().lines().toList())
        .as(r.toString())
        .hasSize(2)
        .satisfies(l -> assertThat(l.get(0)).contains("waiting up to 1500ms"))
        .satisfies(l -> assertThat(l.get(1)).startsWith("inbox: ").contains("unreachable"));
    // It waited its 1500 ms (the code guarantees the lower bound); that it then gave up rather
    // than waiting for ever is what the second line and exit 1 show, with @Timeout as backstop.
    assertThat(took).as(r.toString()).isGreaterThanOrEqualTo(1.4);
  }

  @Test
  void aRefusedLoginIsNeverWaitedOutMidRun() {
    java.util.concurrent.atomic.AtomicInteger tries =
        new java.util.concurrent.atomic.AtomicInteger();
    java.io.StringWriter err = new java.io.StringWriter();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                DatabaseRetries.untilAvailable(
                    new java.io.PrintWriter(err, true),
                    "reading the end state",
                    () -> {
                      tries.incrementAndGet();
                      throw new dev.archlab.inbox.StoreUnavailableException(
                          dev.archlab.inbox.StoreUnavailableException.Reason.LOGIN_REFUSED,
                          "inbox status failed: database refused the login: password"
                              + " authentication failed [SQLState 28P01]",
                          new java.sql.SQLException("password authentication failed", "28P01"));
                    }))
        .hasMessageContaining("refused the login");
    assertThat(tries).hasValue(1);
    assertThat(err.toString()).isEmpty();
  }

  // ---- simulate: each run its own ids
  // ------------------------------------------------------------

  private static Cli.Result simulate(String url, String... extra) {
    String[] base = {
      "simulate",
      "--db",
      url,
      "--duplicates",
      "1",
      "--workers",
      "3",
      "--crash-rate",
      "0",
      "--lease",
      "200ms",
      "--seed",
      "5"
    };
    return Cli.run(concat(base, extra));
  }

  @Test
  @Timeout(120)
  void differentRunsInOneDatabaseEachVerifyOnlyTheirOwnIds() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("runs") + ";AUTO_SERVER=TRUE";
    Cli.Result big = simulate(url, "--messages", "300");
    assertThat(big.code()).as(big.toString()).isZero();
    assertThat(big.out()).containsPattern("DONE ids\\s+300\\b").contains("distinct 300");
    // Same seed, fewer messages: the run used to count the first run's 300 DONE ids as its own.
    Cli.Result small = simulate(url, "--messages", "100");
    assertThat(small.code()).as(small.toString()).isZero();
    assertThat(small.out())
        .containsPattern("applied\\s+100\\b")
        .containsPattern("DONE ids\\s+100\\b")
        .containsPattern("effects\\s+100\\s+distinct 100\\b");
    // Same seed and size under another consumer, and in another inbox table.
    for (String[] other :
        new String[][] {
          {"--consumer", "sim-b"},
          {"--table", "other_inbox"},
          {"--poison", "3", "--max-attempts", "2"}
        }) {
      Cli.Result r = simulate(url, concat(new String[] {"--messages", "100"}, other));
      assertThat(r.code()).as(r.toString()).isZero();
      assertThat(r.out()).contains("applied").contains("EXACTLY ONE EFFECT PER ID");
      assertThat(r.out()).as(r.toString()).doesNotContainPattern("applied\\s+0\\b");
    }
    // The same arguments again resume the same ids: nothing is applied twice.
    Cli.Result again = simulate(url, "--messages", "100");
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.out())
        .containsPattern("applied\\s+0\\b")
        .containsPattern("effects\\s+100\\s+distinct 100\\b");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery("SELECT COUNT(*), COUNT(DISTINCT message_id) FROM inbox_sim_effect")) {
      rs.next();
      // 300 + 100 + 100 + 100 + 97 (3 poison ids are never applied) distinct ids, once each.
      assertThat(rs.getLong(1)).isEqualTo(697);
      assertThat(rs.getLong(2)).isEqualTo(697);
    }
    // Redirected output (as in this test): no progress bar.
    assertThat(big.err() + small.err() + again.err()).doesNotContain("\r");
  }

  @Test
  void simulateAndPruneDrawTheBarOnlyOnATerminalAndNeverWithNoProgress() {
    String url = "jdbc:h2:file:" + dir.resolve("progress") + ";AUTO_SERVER=TRUE";
    java.util.function.BooleanSupplier real = Output.progressTerminal;
    try {
      Output.progressTerminal = () -> true;
      Cli.Result drawn = simulate(url, "--messages", "50");
      assertThat(drawn.code()).as(drawn.toString()).isZero();
      assertThat(drawn.err()).contains("\rdeliveries [");
      Cli.Result quiet = simulate(url, "--messages", "60", "--no-progress");
      assertThat(quiet.code()).as(quiet.toString()).isZero();
      assertThat(quiet.err()).doesNotContain("\r");
      Cli.Result prune = Cli.run("prune", "--db", url, "--older-than", "2d", "--no-progress");
      assertThat(prune.code()).as(prune.toString()).isZero();
      assertThat(prune.err()).doesNotContain("\r");
    } finally {
      Output.progressTerminal = real;
    }
  }

  // ---- operator commands on the embedded database, with exact figures
  // ----------------------------

  private static JdbcInboxStore h2Store(String url, String table) {
    org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
    ds.setURL(url);
    return JdbcInboxStore.builder(ds).table(table).build();
  }

  private static void h2(String url, String sql) throws java.sql.SQLException {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static dev.archlab.inbox.Claim claim(JdbcInboxStore store, String consumer, String id) {
    return store.begin(new BeginRequest(consumer, id, Duration.ofMinutes(5), 5, null)).claim();
  }

  @Test
  void statusReportsStuckDeadOldestProcessingAndPastRetention() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("status") + ";AUTO_SERVER=TRUE";
    String[] db = {"--db", url, "--table", "status_inbox"};
    assertThat(Cli.run(concat(new String[] {"migrate"}, db)).code()).isZero();
    JdbcInboxStore store = h2Store(url, "status_inbox");
    store.complete(claim(store, "ops", "done-old"), null);
    store.complete(claim(store, "ops", "done-new"), null);
    store.markDead(claim(store, "ops", "dead-1"), "cannot parse");
    claim(store, "ops", "stuck-1");
    claim(store, "ops", "live-1");
    store.complete(claim(store, "other", "o-1"), null);
    // Ten days since done-old was finished; stuck-1's owner died a minute ago; live-1 was first
    // claimed two hours ago and is still leased.
    h2(
        url,
        "UPDATE status_inbox SET updated_at = DATEADD('DAY', -10, updated_at)"
            + " WHERE message_id = 'done-old'");
    h2(
        url,
        "UPDATE status_inbox SET lease_until = DATEADD('MINUTE', -1, CURRENT_TIMESTAMP)"
            + " WHERE message_id = 'stuck-1'");
    h2(
        url,
        "UPDATE status_inbox SET created_at = DATEADD('HOUR', -2, created_at)"
            + " WHERE message_id = 'live-1'");

    Cli.Result status = Cli.run(concat(new String[] {"status"}, db));
    assertThat(status.code()).as(status.toString()).isZero();
    assertThat(status.out())
        .contains("CONSUMER")
        .contains("PROCESSING")
        .contains("STUCK")
        .contains("OLDEST ACTIVE")
        .contains("PAST 7d");
    // CONSUMER PROCESSING DONE DEAD STUCK OLDEST-ACTIVE PAST-RETENTION
    assertThat(row(status.out(), "ops")).containsExactly("ops", "2", "2", "1", "1", "2h", "1");
    assertThat(row(status.out(), "other")).containsExactly("other", "0", "1", "0", "0", "-", "0");
    Cli.Result longer = Cli.run(concat(new String[] {"status", "--retention", "14d"}, db));
    assertThat(row(longer.out(), "ops")).containsExactly("ops", "2", "2", "1", "1", "2h", "0");
  }

  private static List<String> row(String table, String consumer) {
    return table
        .lines()
        .filter(l -> l.startsWith(consumer + " "))
        .findFirst()
        .map(l -> List.of(l.strip().split("\\s+")))
        .orElseThrow(() -> new AssertionError("no row for " + consumer + " in:\n" + table));
  }

  @Test
  void pruneDryRunCountsWhatPruneThenDeletes() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("prune") + ";AUTO_SERVER=TRUE";
    String[] db = {"--db", url, "--table", "prune_inbox"};
    assertThat(Cli.run(concat(new String[] {"migrate"}, db)).code()).isZero();
    JdbcInboxStore store = h2Store(url, "prune_inbox");
    store.complete(claim(store, "ops", "old-done"), null);
    store.complete(claim(store, "ops", "new-done"), null);
    store.markDead(claim(store, "ops", "old-dead"), "poison");
    h2(
        url,
        "UPDATE prune_inbox SET updated_at = DATEADD('DAY', -3, updated_at)"
            + " WHERE message_id IN ('old-done', 'old-dead')");
    String[] window = {"--older-than", "2d", "--redelivery-window", "1d"};

    Cli.Result dry = Cli.run(concat(concat(new String[] {"prune", "--dry-run"}, window), db));
    assertThat(dry.code()).as(dry.toString()).isZero();
    assertThat(dry.out()).contains("would delete 1 DONE record(s)");
    assertThat(store.find("ops", "old-done")).isPresent();
    assertThat(store.find("ops", "new-done")).isPresent();
    assertThat(store.find("ops", "old-dead")).isPresent();

    Cli.Result real = Cli.run(concat(concat(new String[] {"prune"}, window), db));
    assertThat(real.code()).as(real.toString()).isZero();
    assertThat(real.out()).contains("deleted 1 DONE record(s)");
    assertThat(store.find("ops", "old-done")).isEmpty();
    assertThat(store.find("ops", "new-done")).isPresent();
    assertThat(store.find("ops", "old-dead")).isPresent(); // DEAD is never pruned

    Cli.Result nothing = Cli.run(concat(concat(new String[] {"prune", "--dry-run"}, window), db));
    assertThat(nothing.out()).contains("would delete 0 DONE record(s)");
  }

  @Test
  void userAndPasswordComeFromTheEnvironmentUnlessGiven() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("creds") + ";AUTO_SERVER=TRUE";
    // The first connection creates the H2 database with this user and password.
    java.sql.DriverManager.getConnection(url, "admin", "s3cret").close();
    try {
      DbOptions.environment =
          Map.of(
              DbOptions.ENV_URL,
              url,
              DbOptions.ENV_USER,
              "admin",
              DbOptions.ENV_PASSWORD,
              "s3cret");
      Cli.Result migrated = Cli.run("migrate");
      assertThat(migrated.code()).as(migrated.toString()).isZero();
      assertThat(Cli.run("status").code()).isZero();

      DbOptions.environment =
          Map.of(
              DbOptions.ENV_URL, url, DbOptions.ENV_USER, "admin", DbOptions.ENV_PASSWORD, "wrong");
      assertOneLineError(Cli.run("status"), 1, "refused the login");
      // --password wins over the variable.
      assertThat(Cli.run("status", "--password", "s3cret").code()).isZero();

      DbOptions.environment =
          Map.of(
              DbOptions.ENV_URL,
              url,
              DbOptions.ENV_USER,
              "nobody",
              DbOptions.ENV_PASSWORD,
              "s3cret");
      assertOneLineError(Cli.run("status"), 1, "refused the login");
      assertThat(Cli.run("status", "--user", "admin").code()).isZero();
    } finally {
      DbOptions.environment = Map.of();
    }
  }

  // ---- one-line usage errors, migrate on a foreign table
  // -------------------------------------------

  @Test
  void aUsageErrorWithANewlineInItsMessageIsStillOneLine() {
    Cli.Result r = Cli.run("status", "--db", h2, "--retention", "5\nx");
    assertOneLineError(r, 2, "invalid duration '5 x'");
    r = Cli.run("show", "--db", h2, "billing\nnext", "m-1");
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
  }

  @Test
  void migrateRefusesATableThatLacksColumnsAndNamesThem() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("partial") + ";AUTO_SERVER=TRUE";
    // Readable as an inbox table for consumer/message_id, and has the index's columns too.
    h2(
        url,
        "CREATE TABLE partial_inbox (consumer VARCHAR(128) NOT NULL, message_id VARCHAR(255)"
            + " NOT NULL, state VARCHAR(10) NOT NULL, updated_at TIMESTAMP WITH TIME ZONE,"
            + " Last_Error VARCHAR(1000))");
    Cli.Result r = Cli.run("migrate", "--db", url, "--table", "partial_inbox");
    assertOneLineError(
        r,
        1,
        "table partial_inbox exists but is not an inbox table: it lacks column(s) attempts,"
            + " lease_until, created_at, payload_hash, result of the 10");
    assertThat(r.out()).doesNotContain("up to date");
    // Nothing was changed: no index was added.
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.ResultSet rs =
            c.getMetaData().getIndexInfo(null, null, "PARTIAL_INBOX", false, false)) {
      while (rs.next()) {
        assertThat(rs.getString("INDEX_NAME")).doesNotContainIgnoringCase("state_updated");
      }
    }
    // The table name is matched whatever its case; a whole table is up to date.
    assertThat(Cli.run("migrate", "--db", url, "--table", "PARTIAL_INBOX").code()).isEqualTo(1);
    Cli.Result fresh = Cli.run("migrate", "--db", url, "--table", "whole_inbox");
    assertThat(fresh.out()).contains("table whole_inbox created");
    Cli.Result again = Cli.run("migrate", "--db", url, "--table", "Whole_Inbox");
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.out()).contains("is up to date");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
