package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command as a separate process, as users run it: the demo on the embedded default (SQLite) and
 * on H2 by URL, and a {@code simulate} killed with SIGKILL mid-run and run again, after which the
 * effect table must hold exactly one row per id — on the embedded default (at random moments, with
 * no skip path) and on PostgreSQL; and three processes sharing one SQLite file, one killed. The run
 * is mid-run when killed by construction, not by timing: a {@link SimulationHolder} process holds
 * one of its ids until the driver releases it.
 */
class CliProcessTest {

  static final int MESSAGES = 4000;
  static final int DUPLICATES = 2;
  static final long SEED = 99;

  /** How long one run to the end may take before it counts as hung. */
  static final long RUN_BACKSTOP_SECONDS = 300;

  static final String KILL_ROUNDS_PROPERTY = "inbox.killRounds";
  static final String KILL_MESSAGES_PROPERTY = "inbox.killMessages";
  static final String KILL_SEED_PROPERTY = "inbox.killSeed";

  @TempDir Path workDir;

  static ProcessBuilder inbox(Path workDir, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(InboxCli.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
    pb.environment().remove(DbOptions.ENV_URL);
    pb.environment().remove(DbOptions.ENV_USER);
    pb.environment().remove(DbOptions.ENV_PASSWORD);
    return pb;
  }

  record Ran(int code, String out) {}

  static Ran runToEnd(ProcessBuilder pb) throws Exception {
    File log = Files.createTempFile("inbox-cli", ".log").toFile();
    Process p = pb.redirectErrorStream(true).redirectOutput(log).start();
    if (!p.waitFor(RUN_BACKSTOP_SECONDS, TimeUnit.SECONDS)) {
      // Say where it is stuck before failing: a hang is otherwise undiagnosable from CI's log.
      String threads = threadDump(p.pid());
      p.destroyForcibly();
      String output = Files.readString(log.toPath(), StandardCharsets.UTF_8);
      throw new AssertionError(
          "process did not finish in "
              + RUN_BACKSTOP_SECONDS
              + " s; its output:\n"
              + output
              + "\nits threads:\n"
              + threads);
    }
    return new Ran(p.exitValue(), Files.readString(log.toPath(), StandardCharsets.UTF_8));
  }

  /** {@code jcmd PID Thread.print} of a running JVM, or why it could not be taken. */
  private static String threadDump(long pid) {
    try {
      Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
      File out = Files.createTempFile("inbox-threads", ".txt").toFile();
      Process dump =
          new ProcessBuilder(jcmd.toString(), String.valueOf(pid), "Thread.print")
              .redirectErrorStream(true)
              .redirectOutput(out)
              .start();
      if (!dump.waitFor(30, TimeUnit.SECONDS)) {
        dump.destroyForcibly();
      }
      return Files.readString(out.toPath(), StandardCharsets.UTF_8);
    } catch (IOException | InterruptedException e) {
      return "no thread dump: " + e;
    }
  }

  @Test
  @Timeout(120)
  void demoRunsOnTheEmbeddedDefault() throws Exception {
    Ran demo = runToEnd(inbox(workDir, "demo"));
    assertThat(demo.code()).as(demo.out()).isZero();
    assertThat(demo.out())
        .contains("embedded SQLite ./.inbox/inbox.db")
        .contains("verdict: EXACTLY-ONCE EFFECT HELD (8 of 8 scenarios held)");
    assertThat(workDir.resolve(".inbox").resolve("inbox.db")).isRegularFile();
    // A second process sees the first one's records.
    Ran status = runToEnd(inbox(workDir, "status"));
    assertThat(status.code()).as(status.out()).isZero();
    assertThat(status.out()).contains("demo-notifier");
  }

  @Test
  @Timeout(120)
  void demoRunsOnH2ByUrl() throws Exception {
    String url = "jdbc:h2:file:" + workDir.resolve("h2").resolve("inbox") + ";AUTO_SERVER=TRUE";
    Ran demo = runToEnd(inbox(workDir, "demo", "--db", url));
    assertThat(demo.code()).as(demo.out()).isZero();
    assertThat(demo.out())
        .contains("inbox demo on h2")
        .contains("verdict: EXACTLY-ONCE EFFECT HELD (8 of 8 scenarios held)");
    Ran status = runToEnd(inbox(workDir, "status", "--db", url));
    assertThat(status.code()).as(status.out()).isZero();
    assertThat(status.out()).contains("demo-notifier");
    assertThat(workDir.resolve(".inbox")).doesNotExist();
  }

  @Test
  @Timeout(120)
  void anOlderVersionsH2FileIsNotedOnceWithHowToKeepUsingIt() throws Exception {
    Path dir = Files.createDirectories(workDir.resolve(".inbox"));
    String h2 = "jdbc:h2:file:" + dir.resolve("inbox");
    execute(h2, "", "CREATE TABLE older_version (id INT)");
    assertThat(dir.resolve("inbox.mv.db")).isRegularFile();

    Ran first = runToEnd(inbox(workDir, "migrate"));
    assertThat(first.code()).as(first.out()).isZero();
    assertThat(first.out())
        .contains("holds an H2 database (inbox.mv.db) from an older version")
        .contains("--db 'jdbc:h2:file:" + dir.resolve("inbox") + ";AUTO_SERVER=TRUE'");
    Ran second = runToEnd(inbox(workDir, "migrate"));
    assertThat(second.code()).as(second.out()).isZero();
    assertThat(second.out()).doesNotContain("H2 database");
    assertThat(dir.resolve("inbox.db")).isRegularFile();
    // The note's way back works: the older file opens by URL and still has its data.
    Ran byUrl =
        runToEnd(
            inbox(
                workDir,
                "migrate",
                "--db",
                "jdbc:h2:file:" + dir.resolve("inbox") + ";AUTO_SERVER=TRUE"));
    assertThat(byUrl.code()).as(byUrl.out()).isZero();
    assertThat(count(h2, "", "SELECT COUNT(*) FROM older_version")).isZero();
  }

  /**
   * Rounds of: kill {@code simulate} with SIGKILL at a random moment on the embedded default (a
   * fresh directory each round), then run it again to the end: exactly one effect row per id.
   * {@value #KILL_ROUNDS_PROPERTY} sets the rounds (default 2; by hand, e.g. 50) and {@value
   * #KILL_MESSAGES_PROPERTY} the ids per run; {@value #KILL_SEED_PROPERTY} replays the moments.
   */
  @Test
  @Timeout(7200) // a hang guard for long runs by hand; every wait inside has its own backstop
  void simulateKilledWithSigkillAtRandomMomentsResumesToOneEffectPerIdOnTheEmbeddedDefault()
      throws Exception {
    int rounds = Integer.getInteger(KILL_ROUNDS_PROPERTY, 2);
    int messages = Integer.getInteger(KILL_MESSAGES_PROPERTY, MESSAGES);
    long seed = Long.getLong(KILL_SEED_PROPERTY, System.nanoTime());
    Random moments = new Random(seed);
    int hits = 0;
    for (int round = 1; round <= rounds; round++) {
      Path dir = Files.createDirectories(workDir.resolve("round-" + round));
      // -1: right after the process started (it may not have opened the database yet); else once
      // that many effect rows exist, up to all but the held id's.
      long killAt = moments.nextInt(messages + 1) - 1L;
      System.out.printf(
          "kill round %d of %d (seed %d): kill at %s%n",
          round, rounds, seed, killAt < 0 ? "start" : killAt + " effects");
      killAndResume(dir, embeddedUrl(dir), null, new String[0], messages, killAt);
      hits++;
    }
    System.out.printf(
        "kill rounds: %d, kills that hit a running process: %d, failures: 0 (seed %d)%n",
        rounds, hits, seed);
  }

  @Test
  @Timeout(600) // a hang guard: every wait inside ends as soon as its event happened
  void simulateKilledWithSigkillResumesToOneEffectPerIdOnPostgres() throws Exception {
    String url = EmbeddedPostgres.bareUrl();
    // A previous run of this test on the same server must not count.
    execute(url, "postgres", "DROP TABLE IF EXISTS inbox_sim_effect");
    execute(url, "postgres", "DROP TABLE IF EXISTS inbox");
    killAndResume(
        workDir,
        url,
        "postgres",
        new String[] {"--db", url, "--user", "postgres"},
        MESSAGES,
        MESSAGES / 5);
  }

  /**
   * Three {@code simulate} processes on one SQLite file at once (the embedded default), one of them
   * killed with SIGKILL mid-run and started again: one effect row per id. Mid-run holds by
   * construction: a {@link SimulationHolder} holds one id of the run, so no process can finish
   * before the holder is released.
   */
  @Test
  @Timeout(900) // a hang guard: every wait inside ends as soon as its event happened
  void threeProcessesOnOneSqliteFileOneKilledAndRestartedGiveOneEffectPerId() throws Exception {
    String url = embeddedUrl(workDir);
    String[] args = simulateArgs(MESSAGES, "2");
    String heldId = heldId(MESSAGES);
    Process holder = startHolder(workDir, url, null, MESSAGES);
    Path holderLog = workDir.resolve("holder.log");
    List<Process> runs = new ArrayList<>();
    List<File> logs = new ArrayList<>();
    try {
      awaitLine(holder, holderLog, "HOLDING " + heldId);
      for (int i = 0; i < 3; i++) {
        File log = workDir.resolve("sim-" + i + ".log").toFile();
        logs.add(log);
        runs.add(inbox(workDir, args).redirectErrorStream(true).redirectOutput(log).start());
      }
      // Backstop only: no run can finish while the id is held.
      long killAt = new Random().nextInt(MESSAGES / 2) + 1;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
      while (effects(url, null) < killAt) {
        for (int i = 0; i < 3; i++) {
          assertThat(runs.get(i).isAlive())
              .as("run %d still running; log:%n%s", i, Files.readString(logs.get(i).toPath()))
              .isTrue();
        }
        assertThat(System.nanoTime() < deadline)
            .as("%d effects applied (backstop)", killAt)
            .isTrue();
        Thread.sleep(20);
      }
      Process victim = runs.get(1);
      signal(victim, "STOP");
      assertThat(victim.isAlive()).as("the victim still running when frozen").isTrue();
      assertThat(Files.readString(logs.get(1).toPath())).doesNotContain("verdict:");
      victim.destroyForcibly(); // SIGKILL
      assertThat(victim.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(victim.exitValue()).isEqualTo(137);
      File restartedLog = workDir.resolve("sim-1-restarted.log").toFile();
      logs.set(1, restartedLog);
      runs.set(
          1, inbox(workDir, args).redirectErrorStream(true).redirectOutput(restartedLog).start());

      release(holder, holderLog);
      for (int i = 0; i < 3; i++) {
        Process run = runs.get(i);
        assertThat(run.waitFor(RUN_BACKSTOP_SECONDS, TimeUnit.SECONDS))
            .as("run %d finished (backstop)", i)
            .isTrue();
        String out = Files.readString(logs.get(i).toPath());
        assertThat(run.exitValue()).as("run %d: %s", i, out).isZero();
        assertThat(out).contains("verdict: EXACTLY ONE EFFECT PER ID");
      }
      assertThat(count(url, null, "SELECT COUNT(*) FROM inbox_sim_effect")).isEqualTo(MESSAGES);
      assertThat(count(url, null, "SELECT COUNT(DISTINCT message_id) FROM inbox_sim_effect"))
          .isEqualTo(MESSAGES);
    } finally {
      for (Process run : runs) {
        if (run.isAlive()) {
          run.destroyForcibly();
        }
      }
      if (holder.isAlive()) {
        holder.destroyForcibly();
      }
    }
  }

  private static String[] simulateArgs(int messages, String workers) {
    return new String[] {
      "simulate",
      "--messages",
      String.valueOf(messages),
      "--duplicates",
      String.valueOf(DUPLICATES),
      "--workers",
      workers,
      "--crash-rate",
      "0.05",
      "--lease",
      "500ms",
      "--seed",
      String.valueOf(SEED)
    };
  }

  private static String heldId(int messages) {
    return SimulationHolder.heldId(
        SimulationIds.of(
            SimulationHolder.CONSUMER, SimulationHolder.TABLE, messages, DUPLICATES, SEED, 0));
  }

  /**
   * Kills a {@code simulate} run in {@code dir} mid-run and runs it again. "Mid-run" holds by
   * construction: a {@link SimulationHolder} process claims one of the run's ids before the run
   * starts, with a lease longer than the test, so every delivery of that id answers IN_FLIGHT and
   * the run cannot finish until the holder is released. The driver waits (backstop only) until the
   * run has applied {@code killAt} ids (when negative, not at all: right after its start), freezes
   * it, checks it, kills it, then releases the holder (which applies and completes its id, one
   * effect row like the run's) and runs the same command again.
   */
  private void killAndResume(
      Path dir, String url, String user, String[] dbArgs, int messages, long killAt)
      throws Exception {
    String[] args = concat(simulateArgs(messages, "4"), dbArgs);
    String heldId = heldId(messages);
    Process holder = startHolder(dir, url, user, messages);
    Path holderLog = dir.resolve("holder.log");
    Process first = null;
    try {
      awaitLine(holder, holderLog, "HOLDING " + heldId);
      File log = dir.resolve("first.log").toFile();
      first = inbox(dir, args).redirectErrorStream(true).redirectOutput(log).start();
      // Backstop only: the run cannot finish while the id is held, so waiting longer never turns
      // a correct run red; it only bounds a hang.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
      while (killAt >= 0 && effects(url, user) < killAt) {
        assertThat(first.isAlive())
            .as("simulate still running; log:%n%s", Files.readString(log.toPath()))
            .isTrue();
        assertThat(System.nanoTime() < deadline)
            .as("the kill moment came (backstop); log:%n%s", Files.readString(log.toPath()))
            .isTrue();
        Thread.sleep(10);
      }
      // Frozen first, so the checks below and the kill see the same moment: a stopped process
      // can neither finish in between nor exit by itself.
      signal(first, "STOP");
      assertThat(first.isAlive())
          .as("simulate still running when frozen; log:%n%s", Files.readString(log.toPath()))
          .isTrue();
      assertThat(Files.readString(log.toPath()))
          .as("simulate had not reached its verdict when frozen")
          .doesNotContain("verdict:");
      // Both databases are readable while the child is frozen: a server, or a WAL file that
      // readers never wait for.
      assertThat(effects(url, user)).as("effects when frozen").isLessThan(messages);
      assertThat(
              count(
                  url,
                  user,
                  "SELECT COUNT(*) FROM inbox WHERE consumer = 'sim' AND message_id = '"
                      + heldId
                      + "' AND state = 'PROCESSING' AND attempts = 1"))
          .as("the held id is still the holder's claim")
          .isEqualTo(1);
      first.destroyForcibly(); // SIGKILL: no shutdown hooks, no cleanup
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(first.exitValue()).isEqualTo(137);
      if (user == null && killAt >= 1) {
        // The driver's native library, unpacked at start and left behind by the kill, is in
        // ./.inbox/ (org.sqlite.tmpdir), not in the system temp directory. Checked only when the
        // run had written an effect row itself, so it had provably loaded the driver: a run
        // frozen right after its start may not have got that far.
        try (Stream<Path> files = Files.list(dir.resolve(".inbox"))) {
          assertThat(files.map(f -> f.getFileName().toString()))
              .anyMatch(name -> name.contains("sqlitejdbc"));
        }
      }

      release(holder, holderLog);

      Ran second = runToEnd(inbox(dir, args));
      assertThat(second.code()).as(second.out()).isZero();
      assertThat(second.out()).contains("verdict: EXACTLY ONE EFFECT PER ID");
      // Output redirected to a file: no progress bar, whatever the JDK's System.console() says.
      assertThat(Files.readString(log.toPath()) + second.out()).doesNotContain("\r");
      assertThat(count(url, user, "SELECT COUNT(*) FROM inbox_sim_effect")).isEqualTo(messages);
      assertThat(count(url, user, "SELECT COUNT(DISTINCT message_id) FROM inbox_sim_effect"))
          .isEqualTo(messages);
      // The held id was applied once, by its holder: neither run took it over.
      assertThat(
              count(
                  url,
                  user,
                  "SELECT COUNT(*) FROM inbox_sim_effect WHERE message_id = '"
                      + heldId
                      + "' AND worker = '"
                      + SimulationHolder.WORKER
                      + "'"))
          .isEqualTo(1);
    } finally {
      if (first != null && first.isAlive()) {
        first.destroyForcibly();
      }
      if (holder.isAlive()) {
        holder.destroyForcibly();
      }
    }
  }

  /** The embedded default's URL as the CLI builds it in {@code dir}, for the holder and checks. */
  private static String embeddedUrl(Path dir) throws IOException {
    Path inbox = Files.createDirectories(dir.resolve(".inbox"));
    return SqliteDialect.jdbcUrl(inbox.resolve("inbox.db"), DbOptions.SQLITE_BUSY_TIMEOUT);
  }

  private static Process startHolder(Path dir, String url, String user, int messages)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SimulationHolder.class.getName());
    command.add("db=" + url);
    if (user != null) {
      command.add("user=" + user);
    }
    command.add("messages=" + messages);
    command.add("duplicates=" + DUPLICATES);
    command.add("seed=" + SEED);
    // Longer than the test may run: the id stays held until the driver releases it.
    command.add("lease=PT1H");
    // stdin stays a pipe (the default): the release line comes through it.
    return new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("holder.log").toFile())
        .start();
  }

  /** Waits (120 s backstop) until {@code p}'s log holds {@code line}; fails if it ends first. */
  private static void awaitLine(Process p, Path log, String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!readIfPresent(log).contains(line)) {
      assertThat(p.isAlive())
          .as("holder ended before '%s':%n%s", line, readIfPresent(log))
          .isTrue();
      assertThat(System.nanoTime() < deadline)
          .as("holder printed '%s' (backstop); its output:%n%s", line, readIfPresent(log))
          .isTrue();
      Thread.sleep(50);
    }
  }

  /** Releases the holder and waits (backstop) until it has applied and completed its id. */
  private static void release(Process holder, Path log) throws Exception {
    try (OutputStream in = holder.getOutputStream()) {
      in.write("release\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(holder.waitFor(120, TimeUnit.SECONDS))
        .as("holder ended after its release (backstop); %s", readIfPresent(log))
        .isTrue();
    String output = readIfPresent(log);
    assertThat(holder.exitValue()).as("holder exit; %s", output).isZero();
    assertThat(output).contains("COMPLETED ");
  }

  private static String readIfPresent(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }

  /** Sends {@code kill -<sig>} to {@code p} and waits for {@code kill} to return. */
  static void signal(Process p, String sig) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).start();
    assertThat(kill.waitFor(30, TimeUnit.SECONDS)).as("kill -%s returned", sig).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %d", sig, p.pid()).isZero();
  }

  private static long effects(String url, String user) {
    try {
      return count(url, user, "SELECT COUNT(*) FROM inbox_sim_effect");
    } catch (SQLException notYet) {
      return 0; // the table is created by the process under test
    }
  }

  private static long count(String url, String user, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void execute(String url, String user, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
