package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A consumer process for the kill tests: a {@link RabbitInboxConsumer} in batch mode (2 channels)
 * writing the business rows through the inbox's transaction. Ids starting with "poison" always
 * fail. After the first applied delivery it creates {@code <dir>/applied-<pid>}: the driver kills
 * only processes known to be running. Runs until killed (a plain SIGTERM closes it cleanly).
 *
 * <p>Arguments: amqpPort workQueue jdbcUrl consumerName dir.
 */
public final class ConsumerProcess {

  private ConsumerProcess() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String queue = args[1];
    String jdbcUrl = args[2];
    String name = args[3];
    Path dir = Path.of(args[4]);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
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
    BatchConsumer batch =
        BatchConsumer.builder(name, store)
            .config(config)
            .handler(
                (List<Message> messages, java.sql.Connection c) -> {
                  for (Message m : messages) {
                    if (m.id().startsWith("poison")) {
                      throw new IllegalStateException("poison message " + m.id());
                    }
                    Effects.insert(c, name, m.id());
                  }
                })
            .build();
    AtomicBoolean marked = new AtomicBoolean();
    Path marker = dir.resolve("applied-" + ProcessHandle.current().pid());
    RabbitInboxListener listener =
        new RabbitInboxListener() {
          @Override
          public void outcome(Delivery d, Outcome o) {
            if (o.status() == Outcome.Status.APPLIED && marked.compareAndSet(false, true)) {
              try {
                Files.createFile(marker);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
          }
        };
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(port);
    RabbitInboxConsumer consumer =
        RabbitInboxConsumer.builder(factory, RabbitTopology.forQueue(queue), batch.asMode(100))
            .consumers(2)
            .prefetch(200)
            .minRetryDelay(Duration.ofMillis(50))
            .maxRetryDelay(Duration.ofSeconds(2))
            .listener(listener)
            .build();
    consumer.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  consumer.close();
                  stopped.countDown();
                }));
    stopped.await();
  }
}
