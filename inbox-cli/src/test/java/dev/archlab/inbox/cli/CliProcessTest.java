package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command as a separate process, as users run it: the demo on the embedded default, and a
 * {@code simulate} killed with SIGKILL mid-run and run again, after which the effect table must
 * hold exactly one row per id — on the embedded default and on PostgreSQL.
 */
class CliProcessTest {

  static final int MESSAGES = 4000;

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
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("process finished").isTrue();
    return new Ran(p.exitValue(), Files.readString(log.toPath(), StandardCharsets.UTF_8));
  }

  @Test
  @Timeout(120)
  void demoRunsOnTheEmbeddedDefault() throws Exception {
    Ran demo = runToEnd(inbox(workDir, "demo"));
    assertThat(demo.code()).as(demo.out()).isZero();
    assertThat(demo.out())
        .contains("embedded H2 in ./.inbox/")
        .contains("verdict: EXACTLY-ONCE EFFECT HELD (7 of 7 scenarios held)");
    assertThat(workDir.resolve(".inbox")).isDirectory();
    // A second process sees the first one's records.
    Ran status = runToEnd(inbox(workDir, "status"));
    assertThat(status.code()).as(status.out()).isZero();
    assertThat(status.out()).contains("demo-notifier");
  }

  @Test
  @Timeout(300)
  void simulateKilledWithSigkillResumesToOneEffectPerIdOnTheEmbeddedDefault() throws Exception {
    String url = "jdbc:h2:file:" + workDir.resolve(".inbox").resolve("inbox") + ";AUTO_SERVER=TRUE";
    killAndResume(url, null, new String[0]);
  }

  @Test
  @Timeout(300)
  void simulateKilledWithSigkillResumesToOneEffectPerIdOnPostgres() throws Exception {
    String url = EmbeddedPostgres.bareUrl();
    killAndResume(url, "postgres", new String[] {"--db", url, "--user", "postgres"});
  }

  private void killAndResume(String url, String user, String[] dbArgs) throws Exception {
    String[] simulate = {
      "simulate",
      "--messages",
      String.valueOf(MESSAGES),
      "--duplicates",
      "2",
      "--workers",
      "4",
      "--crash-rate",
      "0.05",
      "--lease",
      "500ms",
      "--seed",
      "99"
    };
    String[] args = concat(simulate, dbArgs);
    if (user != null) {
      // A previous run of this test on the same server must not count.
      execute(url, user, "DROP TABLE IF EXISTS inbox_sim_effect");
      execute(url, user, "DROP TABLE IF EXISTS inbox");
    }
    File log = Files.createTempFile("inbox-sim", ".log").toFile();
    Process first = inbox(workDir, args).redirectErrorStream(true).redirectOutput(log).start();
    long effectsAtKill = -1;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline && first.isAlive()) {
      long effects = effects(url, user);
      if (effects >= MESSAGES / 5) {
        effectsAtKill = effects;
        break;
      }
      Thread.sleep(100);
    }
    assertThat(first.isAlive())
        .as("simulate still running when killed; log:%n%s", Files.readString(log.toPath()))
        .isTrue();
    first.destroyForcibly(); // SIGKILL: no shutdown hooks, no cleanup
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(first.exitValue()).isEqualTo(137);
    assertThat(effectsAtKill).isBetween((long) MESSAGES / 5, (long) MESSAGES - 1);

    Ran second = runToEnd(inbox(workDir, args));
    assertThat(second.code()).as(second.out()).isZero();
    assertThat(second.out()).contains("verdict: EXACTLY ONE EFFECT PER ID");
    assertThat(count(url, user, "SELECT COUNT(*) FROM inbox_sim_effect")).isEqualTo(MESSAGES);
    assertThat(count(url, user, "SELECT COUNT(DISTINCT message_id) FROM inbox_sim_effect"))
        .isEqualTo(MESSAGES);
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
