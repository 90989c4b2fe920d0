package dev.archlab.inbox.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.rabbitmq.RabbitInboxConsumer;
import dev.archlab.inbox.rabbitmq.RabbitInboxListener;
import dev.archlab.inbox.rabbitmq.RabbitTopology;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * RabbitMQ consumer throughput, in paired rounds on the same backlog size: a bare consumer that
 * inserts the business row (autocommit) and then acks, against {@link RabbitInboxConsumer} in
 * one-commit mode (the deliveries waiting on the channel as one one-commit batch, the default), in
 * one-commit mode one delivery per transaction ({@code maxDeliveriesPerCall(1)}) and in batch mode
 * (100 per call), each with one channel, prefetch 200, one database connection for the business
 * work, a real RabbitMQ server and embedded PostgreSQL with fsync on. Targets from issues 17 and
 * 30: one-commit at least 0.8×, batch at least 0.7× of the bare consumer, each decided on the
 * median of the per-round ratios. Each system's queue is filled with N persistent, confirmed
 * messages before its consumer starts; the clock runs from the start until the N-th business row
 * committed, and the row count is checked afterwards.
 *
 * <p>Run (after {@code ./mvnw -B package -pl inbox-bench -am -DskipTests}): {@code java -jar
 * inbox-bench/target/inbox-bench.jar rabbitmq [--rabbit-records N] [--rabbit-rounds R] [--out DIR]}
 * (defaults 20000, 5, {@code inbox-bench/target/bench}); writes {@code rabbitmq.csv}, which {@code
 * report} renders as the RabbitMQ section of BENCHMARKS.md.
 */
public final class RabbitThroughput {

  private static final int PREFETCH = 200;

  private RabbitThroughput() {}

  /** The run's file, read by {@link ReportWriter} for the RabbitMQ section of BENCHMARKS.md. */
  static final String CSV = "rabbitmq.csv";

  /** One row per system: medians over the rounds; ratios to the bare consumer of each round. */
  static final List<String> CSV_HEADER =
      List.of(
          "system",
          "rounds",
          "messages",
          "msgs_per_s",
          "ratio_median",
          "ratio_min",
          "ratio_max",
          "target_ratio");

  /** The targets of issues 17 and 30, as the lowest ratio to the bare consumer; NaN for none. */
  private static final Map<String, Double> TARGETS =
      Map.of("bare", Double.NaN, "one-commit", 0.8, "one-commit-single", Double.NaN, "batch", 0.7);

  /** The systems of one round, in the order they run; the first is the baseline. */
  static final List<String> SYSTEMS = List.of("bare", "one-commit", "one-commit-single", "batch");

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    Path out = Path.of(args.length > 1 ? args[1] : "inbox-bench/target/bench");
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Files.createDirectories(out);
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    Map<String, List<Double>> ratios = new LinkedHashMap<>();
    for (String system : SYSTEMS) {
      rates.put(system, new ArrayList<>());
      ratios.put(system, new ArrayList<>());
    }
    try (BenchDatabase db = BenchDatabase.start();
        BenchRabbitServer rabbit = new BenchRabbitServer()) {
      for (int round = 1; round <= rounds; round++) {
        double bare = 0;
        for (String system : SYSTEMS) {
          double rate = run(db, rabbit, system, n, round);
          if (system.equals("bare")) {
            bare = rate;
          }
          rates.get(system).add(rate);
          ratios.get(system).add(rate / bare);
        }
      }
    }
    List<List<Object>> rows = new ArrayList<>();
    for (String system : SYSTEMS) {
      List<Double> r = ratios.get(system);
      rows.add(
          List.of(
              system,
              rounds,
              n,
              median(rates.get(system)),
              median(r),
              Collections.min(r),
              Collections.max(r),
              TARGETS.get(system)));
    }
    Path csv = out.resolve(CSV);
    Csv.write(csv, CSV_HEADER, rows);
    System.out.println("wrote " + csv + " (java -jar inbox-bench.jar report renders it)");
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }

  private static double run(
      BenchDatabase db, BenchRabbitServer rabbit, String system, int n, int round)
      throws Exception {
    db.reset();
    RabbitTopology topology = RabbitTopology.forQueue("bench-" + system + "-" + round);
    try (Connection admin = rabbit.factory().newConnection("bench-admin");
        HikariDataSource pool = db.pool(2, "bench-" + system)) {
      topology.declare(admin);
      publish(admin, topology.workQueue(), n);
      CountDownLatch done = new CountDownLatch(n);
      long start = System.nanoTime();
      if (system.equals("bare")) {
        runBare(rabbit, pool, topology.workQueue(), done);
      } else {
        runInbox(rabbit, pool, topology, system, done);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long rowsWritten = db.count(BenchDatabase.BUSINESS_TABLE);
      if (rowsWritten != n) {
        throw new IllegalStateException(system + ": " + rowsWritten + " business rows, not " + n);
      }
      double rate = n / seconds;
      System.out.printf(
          Locale.ROOT,
          "round %d %s: %d messages in %.2f s = %.0f/s%n",
          round,
          system,
          n,
          seconds,
          rate);
      return rate;
    }
  }

  private static void publish(Connection c, String queue, int n) throws Exception {
    try (Channel ch = c.createChannel()) {
      ch.confirmSelect();
      for (int i = 0; i < n; i++) {
        AMQP.BasicProperties p =
            new AMQP.BasicProperties.Builder().messageId("m-" + i).deliveryMode(2).build();
        ch.basicPublish("", queue, p, ("{\"amount\":" + i + "}").getBytes(StandardCharsets.UTF_8));
      }
      ch.waitForConfirmsOrDie(600_000);
    }
  }

  /** The floor: insert (autocommit), then ack, on the client's delivery thread. */
  private static void runBare(
      BenchRabbitServer rabbit, HikariDataSource pool, String queue, CountDownLatch done)
      throws Exception {
    try (Connection conn = rabbit.factory().newConnection("bench-bare");
        java.sql.Connection db = pool.getConnection()) {
      Channel ch = conn.createChannel();
      ch.basicQos(PREFETCH);
      PreparedStatement insert = db.prepareStatement(BenchSystem.INSERT_BUSINESS);
      ch.basicConsume(
          queue,
          false,
          new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(
                String tag, Envelope env, AMQP.BasicProperties props, byte[] body)
                throws IOException {
              try {
                insert.setString(1, props.getMessageId());
                insert.setLong(2, body.length);
                insert.executeUpdate();
              } catch (SQLException e) {
                throw new IOException(e);
              }
              ch.basicAck(env.getDeliveryTag(), false);
              done.countDown();
            }
          });
      await(done);
    }
  }

  private static void runInbox(
      BenchRabbitServer rabbit,
      HikariDataSource pool,
      RabbitTopology topology,
      String system,
      CountDownLatch done)
      throws InterruptedException {
    JdbcInboxStore store = JdbcInboxStore.builder(pool).build();
    ConsumeMode mode;
    if (system.startsWith("one-commit")) {
      mode =
          OneCommitConsumer.builder("bench-" + system, store)
              .handler((m, a, c) -> insert(c, m))
              .build()
              .asMode();
    } else {
      mode =
          BatchConsumer.builder("bench-" + system, store)
              .handler(
                  (messages, c) -> {
                    for (Message m : messages) {
                      insert(c, m);
                    }
                  })
              .build()
              .asMode(BenchSystem.BATCH_SIZE);
    }
    RabbitInboxListener counter =
        new RabbitInboxListener() {
          @Override
          public void outcome(Delivery d, Outcome o) {
            if (o.status() == Outcome.Status.APPLIED) {
              done.countDown();
            }
          }
        };
    try (RabbitInboxConsumer consumer =
        RabbitInboxConsumer.builder(rabbit.factory(), topology, mode)
            .prefetch(PREFETCH)
            .maxDeliveriesPerCall(system.equals("one-commit-single") ? 1 : PREFETCH)
            .listener(counter)
            .build()) {
      consumer.start();
      await(done);
    }
  }

  private static void insert(java.sql.Connection c, Message m) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(BenchSystem.INSERT_BUSINESS)) {
      ps.setString(1, m.id());
      ps.setLong(2, m.payload().length);
      ps.executeUpdate();
    }
  }

  private static void await(CountDownLatch done) throws InterruptedException {
    if (!done.await(30, TimeUnit.MINUTES)) {
      throw new IllegalStateException(
          "not finished within 30 minutes: " + done.getCount() + " left");
    }
  }
}
