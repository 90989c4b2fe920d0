package dev.archlab.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.testkit.Await;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Consumer processes killed with SIGKILL mid-run against a real Redis: every id ends DONE or DEAD,
 * and an independent tally (per id, a count of effects under each fencing token, written by the
 * handler) shows that no id's effect ran twice under one claim. An id whose effect ran more than
 * once was taken over after its handler outlived its lease (its process was frozen and killed after
 * the effect, before the completion); those are counted and reported, and each must have as many
 * attempts as effects.
 *
 * <p>CI size: {@code -Dredis.kill.n=600 -Dredis.kill.kills=3} (the defaults). Long run by hand:
 * {@code ./mvnw -B -q test -pl inbox-redis -Dtest=RedisKillTest -Dredis.kill.n=20000
 * -Dredis.kill.kills=10}.
 */
class RedisKillTest {

  private static final int PROCESSES = 3;
  private static final long LIMIT_SECONDS = 300;

  @Test
  void killedConsumersLoseNoIdAndApplyNoClaimTwice() throws Exception {
    int n = Integer.getInteger("redis.kill.n", 600);
    int kills = Integer.getInteger("redis.kill.kills", 3);
    int poisonEvery = 100;
    long seed = Long.getLong("redis.kill.seed", 7L);
    Random random = new Random(seed);
    String prefix = "kill-" + System.nanoTime() + ":";
    String name = "killed";
    Path dir = Files.createTempDirectory("inbox-redis-kill-");
    int port = RedisServers.standalone().port();
    List<String> ids = new ArrayList<>();
    int poison = 0;
    for (int i = 0; i < n; i++) {
      boolean bad = i % poisonEvery == 7;
      ids.add((bad ? "poison-" : "id-") + i);
      poison += bad ? 1 : 0;
    }
    long started = System.nanoTime();
    int killed = 0;
    try (StatefulRedisConnection<String, String> raw = RedisServers.standaloneClient().connect();
        RedisInboxStore store =
            RedisInboxStore.builder()
                .client(RedisServers.standaloneClient())
                .keyPrefix(prefix)
                .buckets(8)
                .build()) {
      RedisCommands<String, String> redis = raw.sync();
      List<Process> fleet = new ArrayList<>();
      for (int i = 0; i < PROCESSES; i++) {
        fleet.add(startChild(port, prefix, name, dir));
      }
      try {
        int chunks = kills + 1;
        for (int c = 0; c < chunks; c++) {
          List<String> chunk = ids.subList(n * c / chunks, n * (c + 1) / chunks);
          redis.rpush(prefix + "released", chunk.toArray(new String[0]));
          if (c == chunks - 1) {
            break;
          }
          // Only a process known to be mid-run is killed: one that applied a message.
          Await.until(
              "a consumer process that has applied a message",
              LIMIT_SECONDS,
              () -> !running(fleet, dir).isEmpty());
          List<Process> candidates = running(fleet, dir);
          Process victim = candidates.get(random.nextInt(candidates.size()));
          // Frozen first, so it stops wherever it was (between effect and completion included),
          // then killed: no shutdown hook, no completion, its claims left to expire.
          new ProcessBuilder("kill", "-STOP", Long.toString(victim.pid())).start().waitFor();
          victim.destroyForcibly();
          victim.waitFor(60, TimeUnit.SECONDS);
          killed++;
          fleet.set(fleet.indexOf(victim), startChild(port, prefix, name, dir));
        }
        // Waits for every id to end, whichever way: which way each one ended is checked per id
        // below, where a mismatch names the id, instead of a wait that runs out saying nothing.
        Await.until(
            "every id DONE or DEAD",
            LIMIT_SECONDS,
            () ->
                store.list(RecordState.DONE, name, Integer.MAX_VALUE).size()
                        + store.list(RecordState.DEAD, name, Integer.MAX_VALUE).size()
                    == n);
      } finally {
        redis.set(prefix + "stop", "1");
        for (Process p : fleet) {
          if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        }
      }
      assertThat(killed).isEqualTo(kills);

      Map<String, InboxRecord> records = new HashMap<>();
      for (RecordState s : RecordState.values()) {
        for (InboxRecord r : store.list(s, name, Integer.MAX_VALUE)) {
          records.put(r.messageId(), r);
        }
      }
      assertThat(records).hasSize(n);
      int appliedTwice = 0;
      int takenOver = 0;
      long effects = 0;
      for (String id : ids) {
        InboxRecord r = records.get(id);
        Map<String, String> byToken = redis.hgetall(prefix + "tally:" + id);
        long count = byToken.values().stream().mapToLong(Long::parseLong).sum();
        effects += count;
        if (id.startsWith("poison")) {
          assertThat(r.state()).as("%s: %s", id, r).isEqualTo(RecordState.DEAD);
          assertThat(count).as(id).isZero();
          continue;
        }
        assertThat(r.state()).as("%s: %s", id, r).isEqualTo(RecordState.DONE);
        assertThat(count).as("effects of " + id).isGreaterThanOrEqualTo(1);
        // Never twice under one claim, and never more often than the id was claimed.
        assertThat(byToken.values()).as("effects of " + id + " per claim").allMatch("1"::equals);
        assertThat(count)
            .as("effects of " + id + " vs its attempts")
            .isLessThanOrEqualTo(r.attempts());
        if (count > 1) {
          appliedTwice++;
        }
        if (r.attempts() > 1) {
          takenOver++;
        }
      }
      System.out.printf(
          "REDIS-KILL passed: ids=%d poison=%d processes=%d kills=%d effects=%d lost=0"
              + " taken-over=%d applied-more-than-once=%d (each after a takeover of a killed"
              + " handler's expired lease) duration=%.1fs%n",
          n,
          poison,
          PROCESSES,
          killed,
          effects,
          takenOver,
          appliedTwice,
          (System.nanoTime() - started) / 1e9);
    }
  }

  private static Process startChild(int port, String prefix, String name, Path dir)
      throws IOException {
    return new ProcessBuilder(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m",
            "-cp",
            testClassPath(),
            RedisConsumerProcess.class.getName(),
            Integer.toString(port),
            prefix,
            name,
            dir.toString(),
            // More attempts than kills: a good id that happened to be held at every kill must not
            // die of it; poison ids still die at the last attempt.
            Integer.toString(Integer.getInteger("redis.kill.kills", 3) + 2))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("children.log").toFile()))
        .start();
  }

  private static String testClassPath() throws IOException {
    String deps = Files.readString(Paths.get("target", "test-classpath.txt")).trim();
    return Paths.get("target", "test-classes").toAbsolutePath()
        + java.io.File.pathSeparator
        + Paths.get("target", "classes").toAbsolutePath()
        + java.io.File.pathSeparator
        + deps;
  }

  private static List<Process> running(List<Process> fleet, Path dir) {
    List<Process> out = new ArrayList<>();
    for (Process p : fleet) {
      if (p.isAlive() && Files.exists(dir.resolve("applied-" + p.pid()))) {
        out.add(p);
      }
    }
    return out;
  }

  /** Polls with a generous backstop; no assertion depends on speed. */
}
