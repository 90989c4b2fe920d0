package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A slow handler and a SIGKILL. One transaction per record: while a record is unfinished (its
 * handler blocked on a gate in a child process), the records before it are committed and nothing at
 * or after it is; after the kill the committed offset is still the unfinished record's, and a
 * restarted consumer applies every record exactly once. One-commit batches (the default): the kill
 * lands while the batch's transaction is open, and none of its records has an effect or an inbox
 * record afterwards; a restarted consumer applies each exactly once.
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
      Process child = startChild(kafka, name, "slow", dir, "one-commit-single");
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

      Process again = startChild(kafka, name, "-", dir, "one-commit-single");
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

  @Test
  void aKillInsideAOneCommitBatchLeavesNoEffectAndNoRecordOfItsRecords() throws Exception {
    var ds = TestPostgres.dataSource();
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    Effects.createTable(ds);
    String name = "batch-kill-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir = Files.createTempDirectory("inbox-kafka-batch-kill");
    List<String> ids = new ArrayList<>();
    try (KafkaFixture kafka = new KafkaFixture(name, 1)) {
      // All ten are in the log before the consumer starts, so its first poll of the partition
      // returns them together and they form one batch: the gate blocks the sixth, inside it.
      for (int i = 0; i < 10; i++) {
        String id = i == 5 ? "slow" : "r" + i;
        ids.add(id);
        kafka.send(0, id, "x");
      }
      Process child = startChild(kafka, name, "slow", dir, "one-commit");
      try {
        Await.until(
            "the slow handler is inside the batch's transaction",
            () -> Files.exists(dir.resolve("gate-entered")));
      } finally {
        child.destroyForcibly(); // SIGKILL
        child.waitFor(60, TimeUnit.SECONDS);
      }
      assertThat(child.isAlive()).isFalse();
      // r0..r4 ran before the slow one in the same transaction: the kill took them all back.
      assertThat(Effects.counts(ds, name)).isEmpty();
      for (String id : ids) {
        assertThat(store.find(name, id)).as("inbox record of " + id).isEmpty();
      }
      assertThat(kafka.committed().getOrDefault(0, 0L)).isZero();

      Process again = startChild(kafka, name, "-", dir, "one-commit");
      try {
        Await.until("every record committed after the restart", kafka::allCommitted);
      } finally {
        again.destroy();
        again.waitFor(60, TimeUnit.SECONDS);
      }
      Map<String, Integer> expected = new HashMap<>();
      for (String id : ids) {
        expected.put(id, 1);
        assertThat(store.find(name, id).orElseThrow().state()).isEqualTo(RecordState.DONE);
      }
      assertThat(Effects.counts(ds, name)).isEqualTo(expected);
    }
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
