package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inbox ui} over plain HTTP, no browser: bad input (unknown ids, forged or token-less
 * actions, a read-only instance, a missing or wrong access token, bad parameters) gets its status
 * and a clear message and changes nothing in the database; a proper action changes it.
 */
class UiHttpTest {

  private static final String TOKEN = "s3cret-token-for-tests";
  private static final Pattern CSRF =
      Pattern.compile("name=\"inbox-csrf\" content=\"([0-9a-f]+)\"");

  @TempDir static Path dir;

  static UiFixture db;
  static RunningUi ui;
  static RunningUi readOnly;
  static RunningUi guarded;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    DbOptions.environment = Map.of();
    db = UiFixture.seeded(dir, "http");
    ui = RunningUi.start(cat(db.dbOptions(), "--port", "0"));
    readOnly = RunningUi.start(cat(db.dbOptions(), "--port", "0", "--read-only"));
    guarded = RunningUi.start(cat(db.dbOptions(), "--port", "0", "--token", TOKEN));
  }

  @AfterAll
  static void stop() throws Exception {
    try (RunningUi a = ui;
        RunningUi b = readOnly;
        RunningUi c = guarded) {
      DbOptions.environment = System.getenv();
    }
  }

  private static String[] cat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static HttpResponse<String> get(RunningUi server, String path, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(server.resolve(path)).timeout(timeout());
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(RunningUi server, String path, String form)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(server.resolve(path))
            .timeout(timeout())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A backstop against a hung server, not a performance bound. */
  private static Duration timeout() {
    return Duration.ofMinutes(2);
  }

  private static String csrfOf(RunningUi server) throws Exception {
    HttpResponse<String> page = get(server, "/");
    assertThat(page.statusCode()).isEqualTo(200);
    Matcher m = CSRF.matcher(page.body());
    assertThat(m.find()).as(page.body()).isTrue();
    return m.group(1);
  }

  private InboxRecord record(String consumer, String id) {
    return db.find(consumer, id).orElseThrow(() -> new AssertionError("no record " + id));
  }

  @Test
  void pageAndDataEndpointsServeWhatTheDatabaseHolds() throws Exception {
    HttpResponse<String> page = get(ui, "/");
    assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
    assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    assertThat(ui.out()).contains("serving http://127.0.0.1:").contains("table " + UiFixture.TABLE);

    HttpResponse<String> overview = get(ui, "/api/overview");
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(overview.body())
        .contains("{\"consumer\":\"billing\",\"processing\":2,\"done\":2,\"dead\":1,\"stuck\":1,")
        .contains("\"pastRetention\":1}");
    HttpResponse<String> dead = get(ui, "/api/records?state=dead&consumer=billing");
    assertThat(dead.body()).contains("\"messageId\":\"dead-1\"").contains("card declined: 402");
    HttpResponse<String> found = get(ui, "/api/find?id=live-1");
    assertThat(found.statusCode()).isEqualTo(200);
    assertThat(found.body()).contains("\"state\":\"PROCESSING\"").contains("\"leaseLeftMillis\":");
  }

  @Test
  void outcomesAreUnavailableOnTheCommandLineWhichHasNoMeterRegistry() throws Exception {
    HttpResponse<String> outcomes = get(ui, "/api/outcomes");
    assertThat(outcomes.statusCode()).isEqualTo(200);
    assertThat(outcomes.headers().firstValue("Content-Type"))
        .hasValue("application/json; charset=utf-8");
    assertThat(outcomes.body()).isEqualTo("{\"available\":false}");
  }

  @Test
  void theOutboxPanelIsUnavailableWithoutAnOutboxTable() throws Exception {
    assertThat(ui.out()).doesNotContain("outbox");
    HttpResponse<String> outbox = get(ui, "/api/outbox");
    assertThat(outbox.statusCode()).isEqualTo(200);
    assertThat(outbox.body()).isEqualTo("{\"available\":false}");
  }

  @Test
  void unknownIdIsA404WithAClearMessageAndChangesNothing() throws Exception {
    HttpResponse<String> find = get(ui, "/api/find?id=no-such-id");
    assertThat(find.statusCode()).isEqualTo(404);
    assertThat(find.body())
        .isEqualTo("{\"error\":\"no record with message id 'no-such-id' for any consumer\"}");

    String csrf = csrfOf(ui);
    HttpResponse<String> release =
        post(ui, "/api/release", "consumer=billing&id=no-such-id&csrf=" + csrf);
    assertThat(release.statusCode()).isEqualTo(404);
    assertThat(release.body())
        .contains("no PROCESSING record for consumer 'billing' and id 'no-such-id'")
        .contains("nothing changed");
    // Releasing a DEAD record is not a release either: it stays DEAD.
    HttpResponse<String> releaseDead =
        post(ui, "/api/release", "consumer=billing&id=dead-1&csrf=" + csrf);
    assertThat(releaseDead.statusCode()).isEqualTo(404);
    assertThat(record("billing", "dead-1").state()).isEqualTo(RecordState.DEAD);
    HttpResponse<String> retry =
        post(ui, "/api/retry-dead", "consumer=billing&id=live-1&csrf=" + csrf);
    assertThat(retry.statusCode()).isEqualTo(404);
    assertThat(retry.body()).contains("no DEAD record for consumer 'billing' and id 'live-1'");
    assertThat(record("billing", "live-1").state()).isEqualTo(RecordState.PROCESSING);

    HttpResponse<String> page = get(ui, "/no/such/page");
    assertThat(page.statusCode()).isEqualTo(404);
    assertThat(page.body()).contains("no such page or action: /no/such/page");
  }

  @Test
  void aForgedFormWithoutOrWithAWrongCsrfTokenIsRefusedAndChangesNothing() throws Exception {
    InboxRecord live = record("billing", "live-1");
    HttpResponse<String> noToken = post(ui, "/api/release", "consumer=billing&id=live-1");
    assertThat(noToken.statusCode()).isEqualTo(403);
    assertThat(noToken.body()).contains("missing or wrong CSRF token").contains("nothing changed");
    HttpResponse<String> wrongToken =
        post(ui, "/api/retry-dead", "consumer=billing&csrf=" + "0".repeat(64));
    assertThat(wrongToken.statusCode()).isEqualTo(403);
    // Another instance's token is as wrong as a made-up one.
    HttpResponse<String> otherInstance =
        post(ui, "/api/retry-dead", "consumer=billing&csrf=" + csrfOf(readOnly));
    assertThat(otherInstance.statusCode()).isEqualTo(403);

    assertThat(record("billing", "live-1")).isEqualTo(live);
    assertThat(record("billing", "dead-1").state()).isEqualTo(RecordState.DEAD);
    assertThat(ui.err()).contains("POST /api/release refused: missing or wrong CSRF token");
  }

  @Test
  void aReadOnlyInstanceRefusesEveryActionAndChangesNothing() throws Exception {
    InboxRecord live = record("billing", "live-1");
    String csrf = csrfOf(readOnly);
    for (String action :
        new String[] {
          "/api/release?x", "/api/retry-dead?x", "/api/prune?x",
        }) {
      HttpResponse<String> r =
          post(readOnly, action.replace("?x", ""), "consumer=billing&id=live-1&csrf=" + csrf);
      assertThat(r.statusCode()).as(action).isEqualTo(403);
      assertThat(r.body()).contains("read-only").contains("nothing changed");
    }
    assertThat(record("billing", "live-1")).isEqualTo(live);
    assertThat(record("billing", "dead-1").state()).isEqualTo(RecordState.DEAD);
    assertThat(record("billing", "done-old").state()).isEqualTo(RecordState.DONE);
    assertThat(readOnly.out()).contains("(read-only)");
    assertThat(get(readOnly, "/").body()).contains("name=\"inbox-read-only\" content=\"true\"");
  }

  @Test
  void aMissingOrWrongAccessTokenIs401() throws Exception {
    HttpResponse<String> none = get(guarded, "/api/overview");
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm="));
    assertThat(none.body()).contains("needs the access token");
    assertThat(get(guarded, "/", "Authorization", "Bearer wrong-token-123").statusCode())
        .isEqualTo(401);
    assertThat(get(guarded, "/api/overview", "Authorization", "Bearer " + TOKEN).statusCode())
        .isEqualTo(200);
    String basic =
        Base64.getEncoder().encodeToString(("ops:" + TOKEN).getBytes(StandardCharsets.UTF_8));
    assertThat(get(guarded, "/api/overview", "Authorization", "Basic " + basic).statusCode())
        .isEqualTo(200);
    // An action without the token is refused before the CSRF check: nothing changes.
    HttpResponse<String> action = post(guarded, "/api/retry-dead", "consumer=billing");
    assertThat(action.statusCode()).isEqualTo(401);
    assertThat(record("billing", "dead-1").state()).isEqualTo(RecordState.DEAD);
  }

  @Test
  void anotherHostNameIsRefusedOnTheLoopbackInterface() throws Exception {
    // What a DNS-rebinding page would send: the attacker's host name, resolved to 127.0.0.1.
    String answer = rawGet(ui, "/", "evil.example:" + ui.uri().getPort());
    assertThat(answer).startsWith("HTTP/1.1 421").contains("guard against DNS rebinding");
    assertThat(answer).doesNotContain("inbox-csrf");
    assertThat(rawGet(ui, "/", "localhost:" + ui.uri().getPort())).startsWith("HTTP/1.1 200");
  }

  /** A GET with a Host header of our choosing, which java.net.http does not let a caller set. */
  private static String rawGet(RunningUi server, String path, String host) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.uri().getPort())) {
      socket.setSoTimeout((int) timeout().toMillis());
      socket
          .getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void badParametersAre400WithASpecificMessage() throws Exception {
    assertError(
        get(ui, "/api/records?state=DEAD&limit=-1"),
        400,
        "limit must be a whole number" + " from 1 to 1000, was '-1'");
    assertError(
        get(ui, "/api/records?state=BOGUS"),
        400,
        "unknown state 'BOGUS': use PROCESSING, DONE or DEAD");
    assertError(get(ui, "/api/records"), 400, "missing parameter 'state'");
    assertError(get(ui, "/api/prune-preview?olderThan=7x"), 400, "invalid olderThan '7x'");
    // A prune shorter than the redelivery window would let a redelivery apply twice: refused.
    HttpResponse<String> tooShort = get(ui, "/api/prune-preview?olderThan=1h");
    assertThat(tooShort.statusCode()).isEqualTo(400);
    assertThat(tooShort.body()).contains("redelivery");
    assertError(get(ui, "/api/find?id=x&consumer=%20orders"), 400, "consumer");
    HttpResponse<String> getAction = get(ui, "/api/release?consumer=billing&id=live-1");
    assertError(getAction, 405, "/api/release is an action: use POST");
    assertThat(record("billing", "live-1").state()).isEqualTo(RecordState.PROCESSING);
  }

  private static void assertError(HttpResponse<String> r, int status, String message) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.body()).startsWith("{\"error\":\"").contains(message);
  }

  @Test
  void actionsWithTheTokenChangeTheDatabaseAndAreLogged() throws Exception {
    String csrf = csrfOf(ui);
    HttpResponse<String> preview = get(ui, "/api/prune-preview?olderThan=7d&consumer=shipping");
    assertThat(preview.body()).contains("\"count\":0");
    HttpResponse<String> retry =
        post(ui, "/api/retry-dead", "consumer=shipping&id=dead-2&csrf=" + csrf);
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
    assertThat(retry.body()).contains("DEAD record shipping/dead-2 is retryable again");
    // Retried: the record is gone, so the next delivery claims it afresh at attempt 1.
    assertThat(db.find("shipping", "dead-2")).isEmpty();
    assertThat(db.claim("shipping", "dead-2", Duration.ofMinutes(1)).fencingToken()).isEqualTo(1);
    assertThat(ui.err())
        .contains("POST /api/retry-dead DEAD record shipping/dead-2 is retryable again");
  }
}
