package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxMessage;
import dev.archlab.inbox.outbox.OutboxRelay;
import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The outbox relay against a bare producer loop, same Kafka broker, same PostgreSQL (fsync on), in
 * paired rounds:
 *
 * <ul>
 *   <li><b>Throughput on a backlog.</b> {@code bare}: an idempotent producer ({@code acks=all})
 *       sends N records and flushes; the clock runs until the last acknowledgement. {@code relay}:
 *       N rows wait in the outbox (written before the clock starts); one {@link OutboxRelay} with
 *       its default settings and a {@link KafkaOutboxPublisher} runs rounds back to back until all
 *       N are published and marked SENT. The ratio is relay / bare of the same round.
 *   <li><b>Latency at a steady rate.</b> One message every {@code 1/rate} s for the window. {@code
 *       bare}: from {@code send} to the producer's acknowledgement callback. {@code relay}: each
 *       message is one autocommit insert into the outbox while the relay runs as an application
 *       runs it ({@link OutboxRelay#start()}, default poll interval); latency is {@code sent_at -
 *       created_at} of its row, both read from the database clock: from the commit of the message
 *       (within the insert) to the relay marking it sent, which it does after the broker's
 *       acknowledgement.
 * </ul>
 *
 * <p>Run (after {@code ./mvnw -B package -pl inbox-bench -am -DskipTests}): {@code java -jar
 * inbox-bench/target/inbox-bench.jar outbox [--outbox-records N] [--outbox-rounds R] [--outbox-rate
 * PER_S] [--outbox-seconds S] [--out DIR]}; writes {@code outbox.csv}, which {@code report} renders
 * as the outbox section of BENCHMARKS.md.
 */
final class OutboxRelayRun {

  /** The run's file, read by {@link ReportWriter} for the outbox section of BENCHMARKS.md. */
  static final String CSV = "outbox.csv";

  static final List<String> CSV_HEADER =
      List.of(
          "system",
          "rounds",
          "messages",
          "msgs_per_s",
          "ratio_median",
          "ratio_min",
          "ratio_max",
          "rate_per_s",
          "latency_messages",
          "latency_p50_ms",
          "latency_p99_ms");

  static final List<String> SYSTEMS = List.of("bare", "relay");

  private static final int PARTITIONS = 6;
  private static final int KEYS = 100;
  private static final byte[] PAYLOAD =
      "{\"amount\":42,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8);

  /**
   * The run's settings: backlog size, rounds, the steady rate and its window, the relay's batch
   * size (0 for its default).
   */
  record Settings(int records, int rounds, int ratePerSecond, int seconds, int batch, Path out) {}

  private OutboxRelayRun() {}

  static void run(BenchDatabase db, KafkaBroker broker, Settings s) throws Exception {
    Map<String, List<Double>> rates = Map.of("bare", new ArrayList<>(), "relay", new ArrayList<>());
    List<Double> ratios = new ArrayList<>();
    Map<String, List<Double>> p50 = Map.of("bare", new ArrayList<>(), "relay", new ArrayList<>());
    Map<String, List<Double>> p99 = Map.of("bare", new ArrayList<>(), "relay", new ArrayList<>());
    try (HikariDataSource pool = db.pool(4, "bench-outbox")) {
      Outbox outbox = Outbox.builder(pool).build();
      outbox.createSchemaIfMissing();
      for (int round = 1; round <= s.rounds(); round++) {
        String topic = "outbox-bench-" + round;
        broker.createTopics(PARTITIONS, topic);
        double bare = bareThroughput(broker, topic, s.records());
        truncate(pool);
        double relay = relayThroughput(relay(broker, outbox, s), outbox, pool, topic, s.records());
        rates.get("bare").add(bare);
        rates.get("relay").add(relay);
        ratios.add(relay / bare);
        System.out.printf(
            Locale.ROOT,
            "round %d throughput: bare %.0f/s, relay %.0f/s, ratio %.2f%n",
            round,
            bare,
            relay,
            relay / bare);
        double[] b = bareLatency(broker, topic, s.ratePerSecond(), s.seconds());
        truncate(pool);
        double[] r =
            relayLatency(
                relay(broker, outbox, s), outbox, pool, topic, s.ratePerSecond(), s.seconds());
        p50.get("bare").add(b[0]);
        p99.get("bare").add(b[1]);
        p50.get("relay").add(r[0]);
        p99.get("relay").add(r[1]);
        System.out.printf(
            Locale.ROOT,
            "round %d latency at %d/s: bare p50 %.2f ms p99 %.2f ms, relay p50 %.2f ms p99 %.2f"
                + " ms%n",
            round,
            s.ratePerSecond(),
            b[0],
            b[1],
            r[0],
            r[1]);
        truncate(pool);
      }
    }
    List<List<Object>> rows = new ArrayList<>();
    for (String system : SYSTEMS) {
      boolean baseline = system.equals("bare");
      rows.add(
          List.of(
              system,
              s.rounds(),
              s.records(),
              RabbitThroughput.median(rates.get(system)),
              baseline ? 1.0 : RabbitThroughput.median(ratios),
              baseline ? 1.0 : Collections.min(ratios),
              baseline ? 1.0 : Collections.max(ratios),
              s.ratePerSecond(),
              s.ratePerSecond() * s.seconds(),
              RabbitThroughput.median(p50.get(system)),
              RabbitThroughput.median(p99.get(system))));
    }
    Files.createDirectories(s.out());
    Path csv = s.out().resolve(CSV);
    Csv.write(csv, CSV_HEADER, rows);
    System.out.println("wrote " + csv + " (java -jar inbox-bench.jar report renders it)");
  }

  /** The bare producer: idempotent, {@code acks=all}, as the relay's publisher is. */
  private static KafkaProducer<String, byte[]> producer(KafkaBroker broker) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrap(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true),
        new StringSerializer(),
        new ByteArraySerializer());
  }

  private static ProducerRecord<String, byte[]> record(String topic, int i) {
    ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, "key-" + (i % KEYS), PAYLOAD);
    r.headers().add("message-id", ("bare-" + i).getBytes(StandardCharsets.UTF_8));
    return r;
  }

  /** Messages per second: N sends, then flush (every acknowledgement in). */
  private static double bareThroughput(KafkaBroker broker, String topic, int n) throws Exception {
    try (KafkaProducer<String, byte[]> p = producer(broker)) {
      p.partitionsFor(topic); // metadata fetched before the clock starts
      AtomicReference<Exception> failed = new AtomicReference<>();
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        p.send(
            record(topic, i),
            (meta, e) -> {
              if (e != null) {
                failed.compareAndSet(null, e);
              }
            });
      }
      p.flush();
      double seconds = (System.nanoTime() - start) / 1e9;
      if (failed.get() != null) {
        throw new IllegalStateException("bare producer send failed", failed.get());
      }
      return n / seconds;
    }
  }

  /** A relay publishing to the broker, with the run's batch size if it sets one. */
  private static OutboxRelay relay(KafkaBroker broker, Outbox outbox, Settings s) {
    OutboxRelay.Builder b =
        OutboxRelay.builder(outbox, KafkaOutboxPublisher.builder(broker.bootstrap()).build());
    if (s.batch() > 0) {
      b.batchSize(s.batch());
    }
    return b.build();
  }

  /** Messages per second: N rows waiting, relay rounds back to back until all are SENT. */
  private static double relayThroughput(
      OutboxRelay relay, Outbox outbox, HikariDataSource pool, String topic, int n)
      throws Exception {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        outbox.send(c, OutboxMessage.of(topic, "key-" + (i % KEYS), PAYLOAD));
        if (i % 500 == 499) {
          c.commit();
        }
      }
      c.commit();
    }
    try (relay) {
      long start = System.nanoTime();
      long published = 0;
      while (published < n) {
        int round = relay.relayOnce();
        if (round == 0) {
          throw new IllegalStateException("relay found nothing due after " + published + " rows");
        }
        published += round;
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long sent = count(pool, "SELECT count(*) FROM inbox_outbox WHERE state = 'SENT'");
      if (sent != n) {
        throw new IllegalStateException("relay: " + sent + " rows SENT, not " + n);
      }
      return n / seconds;
    }
  }

  /** p50 and p99 in ms from send to acknowledgement, one send every {@code 1/rate} s. */
  private static double[] bareLatency(KafkaBroker broker, String topic, int rate, int seconds)
      throws Exception {
    int n = rate * seconds;
    double[] latencies = new double[n];
    CountDownLatch acked = new CountDownLatch(n);
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<String, byte[]> p = producer(broker)) {
      p.partitionsFor(topic);
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        paceTo(start, i, rate);
        int index = i;
        long sent = System.nanoTime();
        p.send(
            record(topic, i),
            (meta, e) -> {
              if (e != null) {
                failed.compareAndSet(null, e);
              }
              latencies[index] = (System.nanoTime() - sent) / 1e6;
              acked.countDown();
            });
      }
      if (!acked.await(120, TimeUnit.SECONDS) || failed.get() != null) {
        throw new IllegalStateException("bare producer: not every send acknowledged", failed.get());
      }
    }
    return percentiles(latencies);
  }

  /**
   * p50 and p99 in ms of {@code sent_at - created_at}: one autocommit outbox insert every {@code
   * 1/rate} s while a started relay publishes them.
   */
  private static double[] relayLatency(
      OutboxRelay relay, Outbox outbox, HikariDataSource pool, String topic, int rate, int seconds)
      throws Exception {
    int n = rate * seconds;
    try (relay;
        Connection c = pool.getConnection()) {
      relay.start();
      c.setAutoCommit(true);
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        paceTo(start, i, rate);
        outbox.send(c, OutboxMessage.of(topic, "key-" + (i % KEYS), PAYLOAD));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (count(pool, "SELECT count(*) FROM inbox_outbox WHERE state = 'SENT'") < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("relay: not every row SENT within 120 s");
        }
        Thread.sleep(20); // waiting for the end of the window, not timing anything
      }
    }
    double[] latencies = new double[n];
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT EXTRACT(EPOCH FROM (sent_at - created_at)) * 1000 FROM inbox_outbox")) {
      int i = 0;
      while (rs.next()) {
        latencies[i++] = rs.getDouble(1);
      }
      if (i != n) {
        throw new IllegalStateException("relay latency: " + i + " rows, not " + n);
      }
    }
    return percentiles(latencies);
  }

  /**
   * Waits until message {@code i} of a steady {@code rate} is due (measured from {@code start}).
   */
  private static void paceTo(long start, int i, int rate) throws InterruptedException {
    long due = start + (long) i * 1_000_000_000L / rate;
    long wait = due - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  private static double[] percentiles(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return new double[] {
      sorted[(int) Math.floor(0.50 * (sorted.length - 1))],
      sorted[(int) Math.floor(0.99 * (sorted.length - 1))]
    };
  }

  private static void truncate(HikariDataSource pool) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE inbox_outbox");
      st.execute("CHECKPOINT");
    }
  }

  private static long count(HikariDataSource pool, String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
