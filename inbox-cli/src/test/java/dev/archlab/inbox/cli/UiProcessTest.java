package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inbox ui} as a separate process, as users run it: it prints the URL it serves on port 0,
 * serves it, and a stop signal (SIGTERM, which the JVM handles as Ctrl-C's SIGINT) closes the
 * server and the store before the process ends.
 */
class UiProcessTest {

  private static final Pattern SERVING = Pattern.compile("serving (http://\\S+/)");

  @TempDir Path workDir;

  @Test
  void printsItsUrlServesAndStopsCleanlyOnASignal() throws Exception {
    String url = "jdbc:h2:file:" + workDir.resolve("proc") + ";AUTO_SERVER=TRUE";
    CliProcessTest.Ran migrate =
        CliProcessTest.runToEnd(CliProcessTest.inbox(workDir, "migrate", "--db", url));
    assertThat(migrate.code()).as(migrate.out()).isZero();

    Process p =
        CliProcessTest.inbox(workDir, "ui", "--port", "0", "--db", url)
            .redirectErrorStream(true)
            .start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      StringBuilder seen = new StringBuilder();
      URI uri = null;
      for (String line; uri == null && (line = out.readLine()) != null; ) {
        seen.append(line).append('\n');
        Matcher m = SERVING.matcher(line);
        if (m.find()) {
          uri = URI.create(m.group(1));
        }
      }
      assertThat(uri).as("the URL line in:\n" + seen).isNotNull();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> page =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(2)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("<title>inbox ui</title>");

      // SIGTERM, which the JVM handles as it handles Ctrl-C's SIGINT (the same shutdown hooks).
      // Not SIGINT itself: a test JVM started from a shell's background job inherits SIGINT
      // ignored, and so would the command. Not Process.destroy: it would close our end of the
      // output.
      assertThat(new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor())
          .isZero();
      assertThat(p.waitFor(RunningUi.BACKSTOP_SECONDS, TimeUnit.SECONDS)).isTrue();
      String rest = out.lines().collect(java.util.stream.Collectors.joining("\n"));
      assertThat(rest).contains("inbox ui: stopped");
      URI closed = uri;
      assertThatThrownBy(
              () ->
                  http.send(
                      HttpRequest.newBuilder(closed).timeout(Duration.ofMinutes(2)).build(),
                      HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(ConnectException.class);
    } finally {
      p.destroyForcibly();
    }
  }
}
