package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.kafka.KafkaBroker;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.testkit.Await;
import dev.archlab.inbox.testkit.RunFigures;
import dev.archlab.inbox.testkit.ScaleOutLedger;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The outbox closes the loop across services, under kills: service A consumes {@code orders}
 * (inbox, one-commit), writes a row and sends a {@code payments} message through the outbox in the
 * same transaction; relays publish the outbox to Kafka; service B consumes {@code payments} with
 * its own inbox and writes a row. Three processes of A, two relays and two of B run on one
 * PostgreSQL and one Kafka broker, all on 127.0.0.1. The orders go out in chunks; between chunks
 * the driver SIGKILLs a running process, of A, a relay and B in turn, and starts another of its
 * kind; once, half-way, it restarts the broker.
 *
 * <p>At the end, checked id by id: every good order has exactly one row in A and one in B and is
 * DONE in both inboxes; every poison order is DEAD in A, on A's dead-letter topic, without a row,
 * and was never sent (no outbox row); the outbox holds exactly one SENT row per good order and
 * nothing unsent; for every customer (the message key) B applied the payments in the order of their
 * outbox rows. The duplicate {@code payments} records the relays produced (a relay killed between
 * the broker's acknowledgement and its commit publishes its rows again) are counted; B's inbox
 * deduplicates them, which the one-row-per-order check proves.
 *
 * <p>Short profile (CI): {@code -Doutbox.chain.n=2000 -Doutbox.chain.kills=6} (the defaults). Long:
 * {@code -Doutbox.chain.n=20000 -Doutbox.chain.kills=15}. The figures go to {@code
 * target/reliability/} for {@code docs/RELIABILITY.md}.
 */
class OutboxChainUnderKillsTest {

  private static final int PARTITIONS = 6;
  private static final int CUSTOMERS = 20;
  private static final int POISON = 5;
  private static final List<String> ROLES = List.of("a", "relay", "b");
  private static final Map<String, Integer> FLEET = Map.of("a", 3, "relay", 2, "b", 2);

  /** How long a relay asked to hold a round is watched for one before it is killed anyway. */
  private static final int PREFERRED_WATCH_SECONDS = 20;

  @Test
  void everyOrderTakesEffectOnceInBothServicesAndItsPaymentKeepsItsKeysOrder() throws Exception {
    int n = Integer.getInteger("outbox.chain.n", 2000);
    int kills = Integer.getInteger("outbox.chain.kills", 6);
    long seed = Long.getLong("outbox.chain.seed", System.nanoTime());
    String scale =
        n == 2000 && kills == 6
            ? "short"
            : n == 20000 && kills == 15 ? "long" : "n" + n + "-kills" + kills;
    RunFigures figures =
        RunFigures.startedFor(RunFigures.directory().resolve("outbox-chain-" + scale + ".csv"));
    System.out.println("OutboxChainUnderKillsTest n=" + n + " kills=" + kills + " seed=" + seed);
    Random random = new Random(seed);
    long started = System.nanoTime();

    List<String> orders = new ArrayList<>();
    Set<String> poison = new HashSet<>();
    Map<String, String> customerOf = new HashMap<>();
    for (int i = 0; i < n; i++) {
      boolean bad = i % (n / POISON) == 7;
      String id = (bad ? "poison-" : "order-") + i;
      orders.add(id);
      customerOf.put(id, "customer-" + (i % CUSTOMERS));
      if (bad) {
        poison.add(id);
      }
    }
    Set<String> good = new HashSet<>(orders);
    good.removeAll(poison);
    // 10 % of the good orders go out twice, as separate records with the same id.
    List<String> records = new ArrayList<>(orders);
    for (int i = 0; i < n; i += 10) {
      if (!poison.contains(orders.get(i))) {
        records.add(orders.get(i));
      }
    }
    // The order B must keep per customer is the order of the outbox rows (A's commits), whatever
    // the order the orders were produced in.
    Collections.shuffle(records, random);

    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String ordersTopic = OutboxChainProcess.ORDERS + "-" + suffix;
    String paymentsTopic = OutboxChainProcess.PAYMENTS + "-" + suffix;
    KafkaBroker broker = KafkaBroker.get();
    broker.createTopics(PARTITIONS, ordersTopic, paymentsTopic);
    broker.createTopics(1, ordersTopic + ".DLT", paymentsTopic + ".DLT");
    Path dir = Files.createTempDirectory("inbox-outbox-chain");

    try (EmbeddedPostgres pg =
            EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "200")
                .setServerConfig("fsync", "off")
                .start();
        KafkaProducer<String, byte[]> producer =
            new KafkaProducer<>(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrap(),
                    ProducerConfig.ACKS_CONFIG,
                    "all"),
                new StringSerializer(),
                new ByteArraySerializer())) {
      DataSource ds = pg.getPostgresDatabase();
      JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
      store.createSchemaIfMissing();
      Outbox.builder(ds).build().createSchemaIfMissing();
      execute(ds, "CREATE TABLE chain_a_effect (order_id VARCHAR(200) NOT NULL)");
      execute(
          ds,
          "CREATE TABLE chain_b_effect (applied BIGINT GENERATED ALWAYS AS IDENTITY,"
              + " payment_id VARCHAR(255) NOT NULL, customer VARCHAR(200) NOT NULL,"
              + " order_id VARCHAR(200) NOT NULL)");
      ChainFleet fleet =
          new ChainFleet(
              dir,
              List.of(
                  broker.bootstrap(),
                  pg.getJdbcUrl("postgres", "postgres"),
                  dir.toString(),
                  ordersTopic,
                  paymentsTopic));
      Map<String, Integer> killed = new HashMap<>();
      int relayKillsMidRound = 0;
      boolean brokerRestarted = false;
      try {
        for (String role : ROLES) {
          for (int i = 0; i < FLEET.get(role); i++) {
            fleet.start(role);
          }
        }
        AtomicReference<Exception> failedSend = new AtomicReference<>();
        int chunks = kills + 1;
        for (int c = 0; c < chunks; c++) {
          for (String id :
              records.subList(records.size() * c / chunks, records.size() * (c + 1) / chunks)) {
            ProducerRecord<String, byte[]> r =
                new ProducerRecord<>(
                    ordersTopic,
                    customerOf.get(id),
                    OutboxChainProcess.orderPayload(customerOf.get(id), id));
            r.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
            producer.send(r, (meta, e) -> failedSend.compareAndSet(null, e));
          }
          producer.flush();
          // A record the broker never took would read as lost by the consumers below.
          assertThat(failedSend.get()).as("the test's producer failed to send").isNull();
          if (c < kills) {
            String role = ROLES.get(c % ROLES.size());
            // A relay is killed inside a round, after the broker acknowledged rows and before
            // they are marked SENT, if it gets work while it is watched: those rows roll back to
            // PENDING and another relay publishes them again.
            if (role.equals("relay")) {
              if (fleet.killRelayHoldingARound(random)) {
                relayKillsMidRound++;
              }
            } else {
              fleet.kill(fleet.running(role, random));
            }
            killed.merge(role, 1, Integer::sum);
            fleet.start(role);
          }
          if (c == chunks / 2) {
            broker.restart();
            brokerRestarted = true;
          }
        }
        Await.until(
            "every order final in A, every payment sent and DONE in B (" + dir + ")",
            600,
            () -> finished(ds, orders.size(), good.size()));
      } finally {
        fleet.stopAll();
      }
      assertThat(brokerRestarted).isTrue();
      for (String role : ROLES) {
        assertThat(killed.getOrDefault(role, 0)).as("kills of " + role).isPositive();
      }

      // Service A: the inbox invariant per order, and no good order dead.
      Map<String, Integer> aEffects =
          counts(ds, "SELECT order_id, count(*) FROM chain_a_effect GROUP BY order_id");
      Set<String> aDeadLettered = new HashSet<>(ChainTopics.ids(broker, ordersTopic + ".DLT"));
      ScaleOutLedger a =
          new ScaleOutLedger(
              good,
              poison,
              aEffects,
              ScaleOutLedger.recordsOf(store, OutboxChainProcess.SERVICE_A),
              aDeadLettered,
              "dead-letter topic of A");
      assertThat(a.violations()).as("service A").isNull();
      assertThat(a.goodDeadByLeaseExpiry()).as("good orders DEAD in A").isEmpty();

      // The outbox: one SENT row per good order, none for poison, nothing unsent.
      Map<String, String> paymentOf = new HashMap<>();
      List<String> outboxProblems = new ArrayList<>();
      try (Connection conn = ds.getConnection();
          Statement st = conn.createStatement();
          ResultSet rs = st.executeQuery("SELECT message_id, state, payload FROM inbox_outbox")) {
        while (rs.next()) {
          String order = new String(rs.getBytes(3), StandardCharsets.UTF_8).split("\\|", 2)[1];
          if (!"SENT".equals(rs.getString(2))) {
            outboxProblems.add(order + ": outbox row " + rs.getString(2));
          }
          if (paymentOf.put(order, rs.getString(1)) != null) {
            outboxProblems.add(order + ": two outbox rows");
          }
        }
      }
      Set<String> poisonSent = new HashSet<>(paymentOf.keySet());
      poisonSent.retainAll(poison);
      Set<String> unsent = new HashSet<>(good);
      unsent.removeAll(paymentOf.keySet());
      assertThat(outboxProblems).as("outbox rows").isEmpty();
      assertThat(poisonSent).as("poison orders sent").isEmpty();
      assertThat(unsent).as("good orders never sent").isEmpty();

      // Service B: one row per payment, every payment DONE.
      Map<String, Integer> bEffects =
          counts(ds, "SELECT payment_id, count(*) FROM chain_b_effect GROUP BY payment_id");
      ScaleOutLedger b =
          new ScaleOutLedger(
              new HashSet<>(paymentOf.values()),
              Set.of(),
              bEffects,
              ScaleOutLedger.recordsOf(store, OutboxChainProcess.SERVICE_B),
              new HashSet<>(ChainTopics.ids(broker, paymentsTopic + ".DLT")),
              "dead-letter topic of B");
      assertThat(b.violations()).as("service B").isNull();
      assertThat(b.goodDeadByLeaseExpiry()).as("payments DEAD in B").isEmpty();

      // Per key: B applied each customer's payments in the order of their outbox rows.
      List<String> outOfOrder = new ArrayList<>();
      Map<String, Long> lastSeq = new HashMap<>();
      try (Connection conn = ds.getConnection();
          Statement st = conn.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT b.customer, o.seq, b.order_id FROM chain_b_effect b"
                      + " JOIN inbox_outbox o ON o.message_id = b.payment_id ORDER BY b.applied")) {
        while (rs.next()) {
          Long before = lastSeq.put(rs.getString(1), rs.getLong(2));
          if (before != null && before > rs.getLong(2)) {
            outOfOrder.add(
                rs.getString(1)
                    + ": "
                    + rs.getString(3)
                    + " (seq "
                    + rs.getLong(2)
                    + ") after seq "
                    + before);
          }
        }
      }
      assertThat(outOfOrder).as("payments B applied out of their key's order").isEmpty();

      List<String> published = ChainTopics.ids(broker, paymentsTopic);
      int duplicates = published.size() - new HashSet<>(published).size();
      // Each relay killed holding a round left rows the broker had taken to be published again.
      assertThat(duplicates)
          .as("payments records published twice, at least one per relay killed holding a round")
          .isGreaterThanOrEqualTo(relayKillsMidRound);
      int killCount = killed.values().stream().mapToInt(Integer::intValue).sum();
      // Written only after every check held: the figures docs/RELIABILITY.md is rendered from.
      figures
          .put("suite", "outbox")
          .put("scale", scale)
          .put("orders", n)
          .put("records", records.size())
          .put("poison", POISON)
          .put("customers", CUSTOMERS)
          .put("a_processes", FLEET.get("a"))
          .put("relays", FLEET.get("relay"))
          .put("b_processes", FLEET.get("b"))
          .put("kills_a", killed.get("a"))
          .put("kills_relay", killed.get("relay"))
          .put("kills_b", killed.get("b"))
          .put("relay_kills_mid_round", relayKillsMidRound)
          .put("broker_restarts", 1)
          .put(
              "process_starts",
              FLEET.values().stream().mapToInt(Integer::intValue).sum() + killCount)
          .put("a_effects", a.effectRows())
          .put("outbox_rows", paymentOf.size())
          .put("b_effects", b.effectRows())
          .put("double_effects", a.doubleEffects() + b.doubleEffects())
          .put("lost", a.lost() + b.lost())
          .put("poison_sent", poisonSent.size())
          .put("payments_records", published.size())
          .put("relay_duplicates", duplicates)
          .put("key_order_violations", outOfOrder.size())
          .put("seconds", String.format(Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9))
          .write(RunFigures.PASSED);
    }
  }

  /** Every order final in A, the outbox all sent, and every payment DONE in B. */
  private static boolean finished(DataSource ds, int orders, int good) {
    try {
      long aFinal =
          count(
              ds,
              "SELECT count(*) FROM inbox WHERE consumer = 'svc-a' AND state IN ('DONE', 'DEAD')");
      long unsent = count(ds, "SELECT count(*) FROM inbox_outbox WHERE state <> 'SENT'");
      long sent = count(ds, "SELECT count(*) FROM inbox_outbox WHERE state = 'SENT'");
      long bDone =
          count(ds, "SELECT count(*) FROM inbox WHERE consumer = 'svc-b' AND state = 'DONE'");
      return aFinal == orders && unsent == 0 && sent == good && bDone == good;
    } catch (SQLException e) {
      return false; // the database is not answering yet: poll again
    }
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Map<String, Integer> counts(DataSource ds, String sql) throws SQLException {
    Map<String, Integer> out = new HashMap<>();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getInt(2));
      }
    }
    return out;
  }

  /** The processes of the chain, started with the same arguments, killed one at a time. */
  private static final class ChainFleet {
    private final Path dir;
    private final List<String> args;
    private final List<Process> processes = new ArrayList<>();
    private final Map<Process, String> roles = new HashMap<>();
    private int started;

    ChainFleet(Path dir, List<String> args) {
      this.dir = dir;
      this.args = args;
    }

    void start(String role) throws Exception {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx256m");
      cmd.add("-cp");
      cmd.add(ChainTopics.testClassPath());
      cmd.add(OutboxChainProcess.class.getName());
      cmd.add(role);
      cmd.addAll(args);
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve(role + "-" + (started++) + ".log").toFile())
              .start();
      processes.add(p);
      roles.put(p, role);
    }

    /** A random process of {@code role} known to be running (its marker), once there is one. */
    Process running(String role, Random random) {
      List<Process> running = new ArrayList<>();
      Await.until(
          "a running " + role + " process to kill (" + dir + ")",
          () -> {
            running.clear();
            for (Process p : processes) {
              if (role.equals(roles.get(p))
                  && p.isAlive()
                  && Files.exists(dir.resolve(role + "-" + p.pid()))) {
                running.add(p);
              }
            }
            return !running.isEmpty();
          });
      return running.get(random.nextInt(running.size()));
    }

    /**
     * Asks a random running relay to hold its next round that the broker acknowledged rows of
     * ({@link OutboxChainProcess.HoldingPublisher}), waits for it to do so for a while, and
     * SIGKILLs it either way.
     *
     * @return whether it was killed holding a round
     */
    boolean killRelayHoldingARound(Random random) throws Exception {
      Process victim = running("relay", random);
      Files.createFile(dir.resolve("hold-" + victim.pid()));
      Path held = dir.resolve("held-" + victim.pid());
      long watchUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(PREFERRED_WATCH_SECONDS);
      while (!Files.exists(held) && victim.isAlive() && System.nanoTime() < watchUntil) {
        Thread.sleep(20); // watching for the relay to have work, not timing anything
      }
      boolean holding = Files.exists(held);
      kill(victim);
      return holding;
    }

    void kill(Process victim) throws InterruptedException {
      victim.destroyForcibly(); // SIGKILL
      assertThat(victim.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }

    void stopAll() throws InterruptedException {
      for (Process p : processes) {
        p.destroy();
      }
      for (Process p : processes) {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }
}
