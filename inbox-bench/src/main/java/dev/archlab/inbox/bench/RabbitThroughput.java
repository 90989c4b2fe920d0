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
import dev.archlab.inbox.jdbc.BatchConsumer;
import dev.archlab.inbox.jdbc.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.OneCommitConsumer;
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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * RabbitMQ consumer throughput, one run per system on the same backlog: a bare consumer that
 * inserts the business row (autocommit) and then acks, against {@link RabbitInboxConsumer} in
 * one-commit mode and in batch mode (100 per call), each with one channel, prefetch 200, one
 * database connection for the business work, a real RabbitMQ server and embedded PostgreSQL with
 * fsync on. Targets from issue 17: one-commit at least 0.8×, batch at least 0.7× of the bare
 * consumer. Each system's queue is filled with N persistent, confirmed messages before its consumer
 * starts; the clock runs from the start until the N-th business row committed, and the row count is
 * checked afterwards.
 *
 * <p>Run (after {@code ./mvnw -B package -pl inbox-bench -am -DskipTests}): {@code java -jar
 * inbox-bench/target/inbox-bench.jar rabbitmq [--rabbit-records N] [--out DIR]} (defaults 20000,
 * {@code inbox-bench/target/bench}); writes {@code rabbitmq-throughput.md}.
 */
public final class RabbitThroughput {

  private static final int PREFETCH = 200;

  private RabbitThroughput() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    Path out = Path.of(args.length > 1 ? args[1] : "inbox-bench/target/bench");
    Files.createDirectories(out);
    List<String> rows = new ArrayList<>();
    double bare;
    double oneCommit;
    double batch;
    try (BenchDatabase db = BenchDatabase.start();
        BenchRabbitServer rabbit = new BenchRabbitServer()) {
      bare = run(db, rabbit, "bare", n, rows);
      oneCommit = run(db, rabbit, "one-commit", n, rows);
      batch = run(db, rabbit, "batch", n, rows);
    }
    StringBuilder md = new StringBuilder();
    md.append("| system | messages | seconds | messages/s | × bare | target |\n");
    md.append("|---|--:|--:|--:|--:|--:|\n");
    md.append(rows.get(0)).append(" 1.00 | – |\n");
    md.append(rows.get(1))
        .append(String.format(Locale.ROOT, " %.2f | ≥ 0.80 |%n", oneCommit / bare));
    md.append(rows.get(2)).append(String.format(Locale.ROOT, " %.2f | ≥ 0.70 |%n", batch / bare));
    Files.writeString(out.resolve("rabbitmq-throughput.md"), md.toString());
    System.out.print(md);
  }

  private static double run(
      BenchDatabase db, BenchRabbitServer rabbit, String system, int n, List<String> rows)
      throws Exception {
    db.reset();
    RabbitTopology topology = RabbitTopology.forQueue("bench-" + system);
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
      rows.add(String.format(Locale.ROOT, "| %s | %d | %.2f | %.0f |", system, n, seconds, rate));
      System.out.printf(
          Locale.ROOT, "%s: %d messages in %.2f s = %.0f/s%n", system, n, seconds, rate);
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
    if (system.equals("one-commit")) {
      mode =
          ConsumeMode.oneCommit(
              OneCommitConsumer.builder("bench-" + system, store)
                  .handler((m, a, c) -> insert(c, m))
                  .build());
    } else {
      mode =
          ConsumeMode.batch(
              BatchConsumer.builder("bench-" + system, store)
                  .handler(
                      (messages, c) -> {
                        for (Message m : messages) {
                          insert(c, m);
                        }
                      })
                  .build(),
              BenchSystem.BATCH_SIZE);
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
