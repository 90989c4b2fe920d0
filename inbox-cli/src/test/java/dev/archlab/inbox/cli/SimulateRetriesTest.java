package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22 item 4 at the command line: the retries of failing (poison) messages are counted as
 * retries, never as takeovers, so the takeover count keeps meaning "a lease ran out under someone".
 */
class SimulateRetriesTest {

  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void poisonRetriesAreRetriesNotTakeovers() {
    String url = "jdbc:h2:file:" + dir.resolve("retries") + ";AUTO_SERVER=TRUE";
    // One worker, no crashes and a lease no handler here comes near: nothing can expire, so every
    // second and third attempt of the 4 poison ids is a due retry (4 x 2 = 8).
    Cli.Result r =
        Cli.run(
            "simulate",
            "--db",
            url,
            "--messages",
            "12",
            "--duplicates",
            "0",
            "--workers",
            "1",
            "--crash-rate",
            "0",
            "--poison",
            "4",
            "--max-attempts",
            "3",
            "--lease",
            "5m",
            "--seed",
            "22",
            "--no-progress");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .containsPattern("(?m)^\\s*takeovers\\s+0\\s")
        .containsPattern("(?m)^\\s*retries\\s+8\\s")
        .contains("DEAD ids 4 (planted poison 4, other 0)")
        .contains("EXACTLY ONE EFFECT PER ID");
  }
}
