package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import dev.archlab.inbox.outbox.OutboxAdmin.Counts;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inbox ui} on a database that also holds an outbox table, over plain HTTP: the command
 * finds the table and the page's outbox routes report it; a forged retry changes nothing, a proper
 * one puts the DEAD row back to PENDING in the database. Naming a table that does not exist, or a
 * table on Redis, is an error that says so.
 */
class UiOutboxHttpTest {

  private static final Pattern CSRF =
      Pattern.compile("name=\"inbox-csrf\" content=\"([0-9a-f]+)\"");

  @TempDir static Path dir;

  static UiFixture db;
  static Outbox outbox;
  static RunningUi ui;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    DbOptions.environment = Map.of();
    db = UiFixture.seeded(dir, "outbox");
    outbox = db.withOutbox();
    ui = RunningUi.start(cat(db.dbOptions(), "--port", "0"));
  }

  @BeforeEach
  void rowsInEveryState() throws Exception {
    db.withOutbox();
  }

  @AfterAll
  static void stop() throws Exception {
    try (RunningUi a = ui) {
      DbOptions.environment = System.getenv();
    }
  }

  private static String[] cat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(ui.resolve(path)).timeout(Duration.ofMinutes(2)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String form) throws Exception {
    return http.send(
        HttpRequest.newBuilder(ui.resolve(path))
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static OutboxAdmin.State stateOf(String id) {
    for (OutboxAdmin.State s : OutboxAdmin.State.values()) {
      if (outbox.admin().list(s, 100).stream().anyMatch(e -> e.row().id().equals(id))) {
        return s;
      }
    }
    throw new AssertionError("no outbox row " + id);
  }

  @Test
  void theCommandFindsTheOutboxTableAndThePageReportsIt() throws Exception {
    assertThat(ui.out()).contains("on table " + UiFixture.TABLE + " and outbox inbox_outbox");
    HttpResponse<String> status = get("/api/outbox");
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(status.body())
        .startsWith(
            "{\"available\":true,\"table\":\"inbox_outbox\",\"pending\":1,\"sent\":1,\"dead\":1,");
    HttpResponse<String> dead = get("/api/outbox/rows?state=DEAD");
    assertThat(dead.body())
        .contains("\"messageId\":\"pay-2\"", "\"lastError\":\"unknown topic 'nowhere'\"")
        .doesNotContain("pay-1", "pay-3");
    HttpResponse<String> bad = get("/api/outbox/rows?state=GONE");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("unknown outbox state 'GONE'");
  }

  @Test
  void aForgedRetryChangesNothingAndAProperOnePutsTheRowBack() throws Exception {
    HttpResponse<String> forged = post("/api/outbox/retry-dead", "id=pay-2");
    assertThat(forged.statusCode()).isEqualTo(403);
    assertThat(stateOf("pay-2")).isEqualTo(OutboxAdmin.State.DEAD);

    Matcher csrf = CSRF.matcher(get("/").body());
    assertThat(csrf.find()).isTrue();
    HttpResponse<String> done = post("/api/outbox/retry-dead", "id=pay-2&csrf=" + csrf.group(1));
    assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
    assertThat(stateOf("pay-2")).isEqualTo(OutboxAdmin.State.PENDING);
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(2, 1, 0));
    assertThat(ui.err())
        .contains("POST /api/outbox/retry-dead refused: missing or wrong CSRF token")
        .contains("POST /api/outbox/retry-dead DEAD outbox row pay-2 is PENDING again");
  }

  @Test
  void aNamedOutboxTableMustExistAndNeedsAJdbcDatabase() {
    Cli.Result missing =
        Cli.run(
            cat(cat(new String[] {"ui"}, db.dbOptions()), "--port", "0", "--outbox-table", "nope"));
    assertThat(missing.code()).as(missing.toString()).isEqualTo(InboxCli.FAILURE);
    assertThat(missing.err()).contains("outbox table 'nope' does not exist in this database");
    Cli.Result redis =
        Cli.run("ui", "--db", "redis://127.0.0.1:1", "--port", "0", "--outbox-table", "x");
    assertThat(redis.code()).isEqualTo(InboxCli.USAGE);
    assertThat(redis.err()).contains("--outbox-table needs a JDBC database");
    Cli.Result malformed =
        Cli.run(cat(cat(new String[] {"ui"}, db.dbOptions()), "--outbox-table", "x;drop"));
    assertThat(malformed.code()).isEqualTo(InboxCli.USAGE);
  }
}
