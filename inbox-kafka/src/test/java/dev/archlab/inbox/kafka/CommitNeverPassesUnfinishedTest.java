package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A slow handler and a SIGKILL: while a record is unfinished (its handler blocked on a gate in a
 * child process), the records before it are committed and nothing at or after it is; after the kill
 * the committed offset is still the unfinished record's, and a restarted consumer applies every
 * record exactly once.
 */
class CommitNeverPassesUnfinishedTest {

  @Test
  void noCommittedOffsetPassesTheRecordWhoseHandlerWasKilled() throws Exception {
    var ds = TestPostgres.dataSource();
    JdbcInboxStore.builder(ds).build().createSchemaIfMissing();
    Effects.createTable(ds);
    String name = "slow-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir = Files.createTempDirectory("inbox-kafka-kill");
    try (KafkaFixture kafka = new KafkaFixture(name, 1)) {
      for (int i = 0; i < 5; i++) {
        kafka.send(0, "r" + i, "x");
      }
      long slowOffset = kafka.send(0, "slow", "x");
      for (int i = 6; i < 10; i++) {
        kafka.send(0, "r" + i, "x");
      }
      Process child = startChild(kafka, name, "slow", dir);
      try {
        Await.until(
            "the slow handler is inside its transaction and the records before it are committed",
            () ->
                Files.exists(dir.resolve("gate-entered"))
                    && Long.valueOf(slowOffset).equals(kafka.committed().get(0)));
      } finally {
        child.destroyForcibly(); // SIGKILL
        child.waitFor(60, TimeUnit.SECONDS);
      }
      assertThat(child.isAlive()).isFalse();
      assertThat(kafka.committed().get(0)).isLessThanOrEqualTo(slowOffset).isEqualTo(slowOffset);
      // The killed transaction left nothing; nothing after the slow record ran.
      Map<String, Integer> before = Effects.counts(ds, name);
      assertThat(before).containsOnlyKeys("r0", "r1", "r2", "r3", "r4");

      Process again = startChild(kafka, name, "-", dir);
      try {
        Await.until("every record committed after the restart", kafka::allCommitted);
      } finally {
        again.destroy();
        again.waitFor(60, TimeUnit.SECONDS);
      }
      Map<String, Integer> expected = new HashMap<>();
      for (int i = 0; i < 10; i++) {
        expected.put(i == 5 ? "slow" : "r" + i, 1);
      }
      assertThat(Effects.counts(ds, name)).isEqualTo(expected);
    }
  }

  static Process startChild(KafkaFixture kafka, String name, String gate, Path dir)
      throws java.io.IOException {
    return startChild(kafka, name, gate, dir, "one-commit");
  }

  static Process startChild(KafkaFixture kafka, String name, String gate, Path dir, String mode)
      throws java.io.IOException {
    return new ProcessBuilder(
            KafkaBroker.javaBinary(),
            "-Xmx256m",
            "-cp",
            KafkaBroker.testClassPath(),
            LoopProcess.class.getName(),
            kafka.broker.bootstrap(),
            kafka.topic,
            kafka.group,
            TestPostgres.jdbcUrl(),
            name,
            gate,
            dir.toString(),
            mode)
        .redirectErrorStream(true)
        .redirectOutput(
            ProcessBuilder.Redirect.appendTo(dir.resolve("child-" + name + ".log").toFile()))
        .start();
  }
}
