package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.jdbc.consumer.TransactionalBatchHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A consumer process for the kill tests: a {@link KafkaInboxLoop} in batch mode writing the
 * business rows through the inbox's transaction. Ids starting with "poison" always fail. A message
 * whose id equals the gate id writes its row, creates {@code <dir>/gate-entered} and then blocks
 * forever inside its open transaction, so the process can be killed while that record is
 * unfinished. After the first applied record it creates {@code <dir>/applied-<pid>}: the driver
 * kills only processes known to be running.
 *
 * <p>Arguments: bootstrap topic group jdbcUrl consumerName gateId dir mode, where mode is {@code
 * batch} (the lease-mode batch: claims committed first, then a poll's records of a partition in one
 * transaction), {@code one-commit} (the default one-commit batches: a poll's records of a
 * partition, claims included, in one transaction) or {@code one-commit-single} (one transaction per
 * record, so the records before a blocked one finish and are committed).
 */
public final class LoopProcess {

  private LoopProcess() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    String group = args[2];
    String jdbcUrl = args[3];
    String name = args[4];
    String gate = args[5];
    Path dir = Path.of(args[6]);
    boolean oneCommit = args[7].startsWith("one-commit");
    int recordsPerCall = args[7].equals("one-commit-single") ? 1 : 500;
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    CountDownLatch never = new CountDownLatch(1);
    InboxConfig config =
        InboxConfig.custom()
            .lease(Duration.ofSeconds(5))
            .retryPolicy(
                RetryPolicy.custom()
                    .maxAttempts(2)
                    .initialDelay(Duration.ofMillis(10))
                    .jitter(0)
                    .build())
            .build();
    TransactionalBatchHandler handler =
        (List<Message> messages, java.sql.Connection c) -> {
          for (Message m : messages) {
            if (m.id().startsWith("poison")) {
              throw new IllegalStateException("poison message " + m.id());
            }
            Effects.insert(c, name, m.id());
            if (m.id().equals(gate)) {
              Files.createFile(dir.resolve("gate-entered"));
              never.await(); // held until the process is killed
            }
          }
        };
    ConsumeMode mode =
        oneCommit
            ? OneCommitConsumer.builder(name, store)
                .config(config)
                .handler((m, a, c) -> handler.handle(List.of(m), c))
                .build()
                .asMode()
            : BatchConsumer.builder(name, store)
                .config(config)
                .handler(handler)
                .build()
                .asMode(200);
    AtomicBoolean marked = new AtomicBoolean();
    String marker = "applied-" + ProcessHandle.current().pid();
    KafkaLoopListener listener =
        new KafkaLoopListener() {
          @Override
          public void outcome(ConsumerRecord<byte[], byte[]> r, Outcome o) {
            if (o.status() == Outcome.Status.APPLIED && marked.compareAndSet(false, true)) {
              try {
                Files.createFile(dir.resolve(marker));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }
          }
        };
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
            .topics(topic)
            .listener(listener)
            .maxPause(Duration.ofMillis(500))
            .maxRecordsPerCall(recordsPerCall)
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(loop::close));
    loop.run();
  }
}
