package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.testkit.Await;
import dev.archlab.inbox.testkit.RunFigures;
import dev.archlab.inbox.testkit.ScaleOutLedger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Scale-out under faults: a 6-partition topic, a group of 3 consumer processes (batch mode), N ids
 * of which 10 % are sent twice as separate records and 5 are poison. The ids go out in chunks;
 * between chunks the driver SIGKILLs a random consumer that is known to be running (it has applied
 * a record since its start) and starts another (a rebalance each time). The group must commit to
 * the end of every partition; then {@link ScaleOutLedger} checks every id: a good id is DONE with
 * exactly one effect, or DEAD with none, on the dead-letter topic and with the lease-expiry error;
 * a poison id is DEAD, without effect and on the dead-letter topic; no id is lost.
 *
 * <p>Why a good id may end DEAD: the consumers run with a 5 s lease and 2 attempts, and a batch
 * does not renew its leases. A kill leaves the victim's claims to expire (attempt 1 spent); on a
 * loaded machine a batch can also take longer than the lease, so its claims are taken over (another
 * attempt spent). After two such expiries the next claim parks the id DEAD, which is the library's
 * promise for that configuration, not a lost message. The count is printed; it is usually 0.
 *
 * <p>Short profile (CI): {@code -Dkafka.scale.n=2000 -Dkafka.scale.kills=3} (the defaults). Long
 * profile, by hand: {@code ./mvnw -B verify -pl inbox-kafka -am -Dtest=ScaleOutUnderKillsTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dkafka.scale.n=20000 -Dkafka.scale.kills=10}.
 */
class ScaleOutUnderKillsTest {

  private static final int CONSUMERS = 3;
  private static final int PARTITIONS = 6;
  private static final int POISON = 5;

  @Test
  void threeConsumerProcessesUnderKillsApplyEveryIdOnce() throws Exception {
    int n = Integer.getInteger("kafka.scale.n", 2000);
    int kills = Integer.getInteger("kafka.scale.kills", 3);
    long seed = Long.getLong("kafka.scale.seed", System.nanoTime());
    String scale =
        n == 2000 && kills == 3
            ? "short"
            : n == 20000 && kills == 10 ? "long" : "n" + n + "-kills" + kills;
    RunFigures figures =
        RunFigures.startedFor(RunFigures.directory().resolve("kafka-scale-out-" + scale + ".csv"));
    System.out.println("ScaleOutUnderKillsTest n=" + n + " kills=" + kills + " seed=" + seed);
    Random random = new Random(seed);
    long started = System.nanoTime();
    DataSource ds = TestPostgres.dataSource();
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    Effects.createTable(ds);
    String name = "scale-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir = Files.createTempDirectory("inbox-kafka-scale");

    List<String> ids = new ArrayList<>();
    Set<String> poison = new HashSet<>();
    for (int i = 0; i < n; i++) {
      boolean bad = i % (n / POISON) == 7;
      String id = (bad ? "poison-" : "id-") + i;
      ids.add(id);
      if (bad) {
        poison.add(id);
      }
    }
    assertThat(poison).hasSize(POISON);
    List<String> records = new ArrayList<>(ids);
    for (int i = 0; i < n; i += 10) {
      if (!poison.contains(ids.get(i))) {
        records.add(ids.get(i)); // a separate second record with the same id
      }
    }
    java.util.Collections.shuffle(records, random);

    try (KafkaFixture kafka = new KafkaFixture(name, PARTITIONS);
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    kafka.broker.bootstrap(),
                    ProducerConfig.ACKS_CONFIG,
                    "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      List<Process> fleet = new ArrayList<>();
      for (int i = 0; i < CONSUMERS; i++) {
        fleet.add(CommitNeverPassesUnfinishedTest.startChild(kafka, name, "-", dir, "batch"));
      }
      AtomicReference<Exception> failedSend = new AtomicReference<>();
      int chunks = kills + 1;
      int killed = 0;
      try {
        for (int c = 0; c < chunks; c++) {
          int from = records.size() * c / chunks;
          int to = records.size() * (c + 1) / chunks;
          for (String id : records.subList(from, to)) {
            ProducerRecord<byte[], byte[]> r =
                new ProducerRecord<>(
                    kafka.topic, null, null, ("payload-" + id).getBytes(StandardCharsets.UTF_8));
            r.headers().add(KafkaIds.DEFAULT_HEADER, id.getBytes(StandardCharsets.UTF_8));
            producer.send(r, (meta, e) -> failedSend.compareAndSet(null, e));
          }
          producer.flush();
          // A record the broker never took would read as lost by the consumers below.
          assertThat(failedSend.get()).as("the test's producer failed to send").isNull();
          if (c == chunks - 1) {
            break;
          }
          // Kill only a process known to be mid-run: one that applied a record since its start.
          Await.until(
              "a consumer process that has applied a record", () -> !running(fleet, dir).isEmpty());
          List<Process> candidates = running(fleet, dir);
          Process victim = candidates.get(random.nextInt(candidates.size()));
          victim.destroyForcibly(); // SIGKILL
          victim.waitFor(60, TimeUnit.SECONDS);
          killed++;
          fleet.set(
              fleet.indexOf(victim),
              CommitNeverPassesUnfinishedTest.startChild(kafka, name, "-", dir, "batch"));
        }
        Await.until("the group committed to the end of every partition", kafka::allCommitted);
      } finally {
        for (Process p : fleet) {
          p.destroy();
        }
        for (Process p : fleet) {
          if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        }
      }
      assertThat(killed).isEqualTo(kills);

      Set<String> good = new HashSet<>(ids);
      good.removeAll(poison);
      Set<String> deadLettered = new HashSet<>();
      List<ConsumerRecord<byte[], byte[]>> dlt = kafka.deadLetters();
      for (ConsumerRecord<byte[], byte[]> r : dlt) {
        deadLettered.add(KafkaFixture.header(r, KafkaIds.DEFAULT_HEADER));
      }
      ScaleOutLedger ledger =
          new ScaleOutLedger(
              good,
              poison,
              Effects.counts(ds, name),
              ScaleOutLedger.recordsOf(store, name),
              deadLettered,
              "dead-letter topic");
      System.out.println("ScaleOutUnderKillsTest ledger: " + ledger.summary() + " logs=" + dir);
      String violations = ledger.violations();
      if (violations != null) {
        throw new AssertionError("seed=" + seed + " logs=" + dir + "\n" + violations);
      }
      Set<String> goodDead = ledger.goodDeadByLeaseExpiry();
      // Written only after every check held: the figures docs/RELIABILITY.md is rendered from.
      figures
          .put("suite", "kafka")
          .put("scale", scale)
          .put("ids", n)
          .put("records", records.size())
          .put("partitions", PARTITIONS)
          .put("consumers", CONSUMERS)
          .put("kills", killed)
          .put("broker_restarts", 0)
          .put("process_starts", CONSUMERS + killed)
          .put("effect_rows", ledger.effectRows())
          .put("double_effects", ledger.doubleEffects())
          .put("lost", ledger.lost())
          .put("dead", POISON + goodDead.size())
          .put("good_dead_by_lease_expiry", goodDead.size())
          .put("dead_letters", dlt.size())
          .put("seconds", String.format(Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9))
          .write(RunFigures.PASSED);
    }
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
}
