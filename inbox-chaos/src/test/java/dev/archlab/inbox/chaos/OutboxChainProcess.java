package dev.archlab.inbox.chaos;

import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TransactionalHandler;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import dev.archlab.inbox.kafka.KafkaLoopListener;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRelay;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.PublishResult;
import dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One process of the outbox chain that {@link OutboxChainUnderKillsTest} kills and restarts:
 *
 * <ul>
 *   <li>{@code a}: service A, a {@link KafkaInboxLoop} on {@code orders} in one-commit mode. For a
 *       good order it writes a row of {@code chain_a_effect} and sends one {@code payments} message
 *       through the outbox, keyed by the order's customer, in the transaction that claims the order
 *       and records it DONE. A poison order sends first and then throws, so its send must roll back
 *       with every failed attempt.
 *   <li>{@code relay}: an {@link OutboxRelay} publishing the outbox to Kafka, which the driver can
 *       hold inside a round ({@link HoldingPublisher}).
 *   <li>{@code b}: service B, a {@link KafkaInboxLoop} on {@code payments} in one-commit mode,
 *       writing a row of {@code chain_b_effect} per payment (its {@code applied} column numbers the
 *       rows in the order B applied them, for the per-key order check).
 * </ul>
 *
 * <p>Neither effect table has a unique key, so a double effect would be a second row. After its
 * first applied record (A, B) or once started (relay) a process creates {@code <dir>/<role>-<pid>}:
 * the driver kills only processes known to be running.
 *
 * <p>Arguments: role bootstrap jdbcUrl dir ordersTopic paymentsTopic.
 */
public final class OutboxChainProcess {

  /** Prefixes of the run's topic names (each run adds a suffix of its own). */
  static final String ORDERS = "orders";

  static final String PAYMENTS = "payments";
  static final String SERVICE_A = "svc-a";
  static final String SERVICE_B = "svc-b";

  private OutboxChainProcess() {}

  public static void main(String[] args) throws Exception {
    String role = args[0];
    String bootstrap = args[1];
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(args[2]);
    // Names the process in pg_stat_activity, for reading a failed run.
    ds.setApplicationName("chain-" + role + "-" + ProcessHandle.current().pid());
    Path marker = Path.of(args[3]).resolve(role + "-" + ProcessHandle.current().pid());
    String ordersTopic = args[4];
    String paymentsTopic = args[5];
    if (role.equals("relay")) {
      long pid = ProcessHandle.current().pid();
      OutboxRelay relay =
          OutboxRelay.builder(
                  Outbox.builder(ds).build(),
                  new HoldingPublisher(
                      KafkaOutboxPublisher.builder(bootstrap).build(),
                      Path.of(args[3]).resolve("hold-" + pid),
                      Path.of(args[3]).resolve("held-" + pid)))
              .build();
      Runtime.getRuntime().addShutdownHook(new Thread(relay::close));
      relay.start();
      mark(marker);
      new CountDownLatch(1).await(); // relays until killed
      return;
    }
    boolean serviceA = role.equals("a");
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    Outbox outbox = Outbox.builder(ds).build();
    TransactionalHandler handler =
        serviceA
            ? (m, attempt, c) -> {
              String[] order = payload(m);
              if (order[1].startsWith("poison")) {
                // Sent first: the failed attempt's rollback must take the send with it.
                outbox.sendsOf(attempt, c).send(paymentsTopic, order[0], m.payload());
                throw new IllegalStateException("poison order " + order[1]);
              }
              try (PreparedStatement ps =
                  c.prepareStatement("INSERT INTO chain_a_effect (order_id) VALUES (?)")) {
                ps.setString(1, order[1]);
                ps.executeUpdate();
              }
              outbox.sendsOf(attempt, c).send(paymentsTopic, order[0], m.payload());
            }
            : (m, attempt, c) -> {
              String[] order = payload(m);
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO chain_b_effect (payment_id, customer, order_id)"
                          + " VALUES (?, ?, ?)")) {
                ps.setString(1, m.id());
                ps.setString(2, order[0]);
                ps.setString(3, order[1]);
                ps.executeUpdate();
              }
            };
    ConsumeMode mode =
        OneCommitConsumer.builder(serviceA ? SERVICE_A : SERVICE_B, store)
            .config(
                InboxConfig.custom()
                    .lease(Duration.ofSeconds(5))
                    .retryPolicy(
                        RetryPolicy.custom()
                            .maxAttempts(3)
                            .initialDelay(Duration.ofMillis(10))
                            .jitter(0)
                            .build())
                    .build())
            .handler(handler)
            .build()
            .asMode();
    AtomicBoolean marked = new AtomicBoolean();
    KafkaLoopListener listener =
        new KafkaLoopListener() {
          @Override
          public void outcome(ConsumerRecord<byte[], byte[]> r, Outcome o) {
            if (o.status() == Outcome.Status.APPLIED && marked.compareAndSet(false, true)) {
              mark(marker);
            }
          }
        };
    String group = serviceA ? SERVICE_A : SERVICE_B;
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(
                Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG,
                    group,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    "earliest",
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                    200,
                    // A killed member's partitions move after this: keeps the kill runs short.
                    ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                    6000,
                    ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                    1000),
                mode)
            .topics(serviceA ? ordersTopic : paymentsTopic)
            .listener(listener)
            .maxPause(Duration.ofMillis(500))
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(loop::close));
    loop.run();
  }

  /** An order's payload: {@code customer|orderId}. */
  static byte[] orderPayload(String customer, String orderId) {
    return (customer + "|" + orderId).getBytes(StandardCharsets.UTF_8);
  }

  private static String[] payload(Message m) {
    String[] parts = new String(m.payload(), StandardCharsets.UTF_8).split("\\|", 2);
    if (parts.length != 2) {
      throw new IllegalArgumentException("not customer|orderId: " + m);
    }
    return parts;
  }

  /**
   * Publishes through Kafka; once the driver has created {@code hold}, the first round the broker
   * acknowledged rows of stops before its rows are marked SENT, with its transaction open, after
   * creating {@code held}: the driver then kills the process, and those rows, which the broker
   * took, are rolled back to PENDING and published again by another relay.
   */
  static final class HoldingPublisher implements OutboxPublisher {
    private final OutboxPublisher delegate;
    private final Path hold;
    private final Path held;

    HoldingPublisher(OutboxPublisher delegate, Path hold, Path held) {
      this.delegate = delegate;
      this.hold = hold;
      this.held = held;
    }

    @Override
    public List<PublishResult> publish(List<OutboxRow> rows) {
      List<PublishResult> results = delegate.publish(rows);
      if (Files.exists(hold)
          && results.stream().anyMatch(r -> r.kind() == PublishResult.Kind.SENT)) {
        mark(held);
        try {
          new CountDownLatch(1).await(); // held until killed
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return results;
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private static void mark(Path marker) {
    try {
      Files.createFile(marker);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
