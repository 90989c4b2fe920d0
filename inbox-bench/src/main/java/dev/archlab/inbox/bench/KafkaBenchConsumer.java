package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.kafka.KafkaIds;
import dev.archlab.inbox.kafka.KafkaInboxLoop;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.header.Header;

/**
 * One consumer process of the Kafka run: one {@link KafkaVariant} with one worker thread, its own
 * connection pool and its own consumer in the run's group. Started by {@link KafkaRun} in a JVM of
 * its own. The protocol on standard input and output keeps JVM start-up out of the run: the process
 * builds everything, prints {@code READY}, waits for a {@code GO} line, consumes until a {@code
 * STOP} line (or the end of input), then closes its loop (committing what finished) and exits 0, or
 * 1 if the loop failed.
 *
 * <p>Arguments: variant bootstrap topic group jdbcUrl maxPollRecords.
 */
public final class KafkaBenchConsumer {

  static final String READY = "READY";
  static final String GO = "GO";
  static final String STOP = "STOP";

  private static final String INSERT_EFFECT =
      "INSERT INTO " + KafkaRun.EFFECT_TABLE + " (message_id, amount) VALUES (?, ?)";

  private KafkaBenchConsumer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println("usage: variant bootstrap topic group jdbcUrl maxPollRecords");
      System.exit(2);
    }
    KafkaVariant variant = KafkaVariant.byLabel(args[0]);
    Map<String, Object> props =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            args[1],
            ConsumerConfig.GROUP_ID_CONFIG,
            args[3],
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            "false",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
            Integer.parseInt(args[5]));
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (HikariDataSource pool = pool(args[4])) {
      Loop loop = open(variant, pool, props, args[2], Integer.parseInt(args[5]));
      System.out.println(READY);
      System.out.flush();
      String go = in.readLine();
      if (!GO.equals(go)) {
        throw new IllegalStateException("expected " + GO + ", got " + go);
      }
      Thread runner =
          new Thread(
              () -> {
                try {
                  loop.run();
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "consume-" + variant.label());
      runner.start();
      String line;
      do {
        line = in.readLine();
      } while (line != null && !STOP.equals(line));
      loop.close();
      runner.join();
    }
    if (failure.get() != null) {
      failure.get().printStackTrace();
      System.exit(1);
    }
  }

  private static HikariDataSource pool(String jdbcUrl) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    // One worker thread; the second connection is only there so no mode can wait on the pool.
    config.setMaximumPoolSize(2);
    config.setMinimumIdle(2);
    config.setPoolName("kafka-bench");
    return new HikariDataSource(config);
  }

  /** A consumer loop that runs on one thread until {@link #close()} from another. */
  interface Loop {
    void run() throws Exception;

    void close();
  }

  static Loop open(
      KafkaVariant variant,
      HikariDataSource pool,
      Map<String, Object> props,
      String topic,
      int maxPollRecords) {
    switch (variant) {
      case BARE_RECORD:
      case BARE_BATCH:
        return new BareLoop(pool, props, topic, variant == KafkaVariant.BARE_BATCH);
      case FLOOR_ONE_COMMIT:
        return new KafkaFloorLoop(pool, props, topic);
      case INBOX_PER_MESSAGE:
      case INBOX_PER_MESSAGE_SINGLE:
      case INBOX_ONE_COMMIT:
      case INBOX_ONE_COMMIT_SINGLE:
      case INBOX_BATCH:
      case INBOX_ONE_COMMIT_BATCH:
        return inboxLoop(variant, pool, props, topic, maxPollRecords);
      default:
        throw new IllegalStateException("no loop for " + variant);
    }
  }

  private static Loop inboxLoop(
      KafkaVariant variant,
      HikariDataSource pool,
      Map<String, Object> props,
      String topic,
      int maxPollRecords) {
    JdbcInboxStore store = JdbcInboxStore.builder(pool).build();
    String name = "kafka-" + variant.label();
    ConsumeMode mode;
    switch (variant) {
      case INBOX_PER_MESSAGE:
      case INBOX_PER_MESSAGE_SINGLE:
        mode =
            IdempotentConsumer.builder(name, store)
                .effect(
                    store.transactional(
                        (message, attempt, c) -> insertEffects(c, List.of(message.id()))))
                .build()
                .asMode();
        break;
      case INBOX_ONE_COMMIT:
      case INBOX_ONE_COMMIT_SINGLE:
        mode =
            OneCommitConsumer.builder(name, store)
                .handler((message, attempt, c) -> insertEffects(c, List.of(message.id())))
                .build()
                .asMode();
        break;
      case INBOX_ONE_COMMIT_BATCH:
        mode =
            OneCommitConsumer.builder(name, store)
                .batchHandler(
                    (messages, c) -> insertEffects(c, messages.stream().map(Message::id).toList()))
                .build()
                .asMode();
        break;
      case INBOX_BATCH:
        mode =
            BatchConsumer.builder(name, store)
                .handler(
                    (messages, c) -> insertEffects(c, messages.stream().map(Message::id).toList()))
                .build()
                .asMode(maxPollRecords);
        break;
      default:
        throw new IllegalStateException(variant + " is not an inbox variant");
    }
    KafkaInboxLoop loop =
        KafkaInboxLoop.builder(props, mode)
            .topics(topic)
            .messageIds(KafkaIds.header(KafkaRun.ID_HEADER))
            .closeTimeout(Duration.ofSeconds(30))
            .maxRecordsPerCall(
                variant == KafkaVariant.INBOX_ONE_COMMIT_SINGLE
                        || variant == KafkaVariant.INBOX_PER_MESSAGE_SINGLE
                    ? 1
                    : maxPollRecords)
            .build();
    return new Loop() {
      @Override
      public void run() {
        loop.run();
      }

      @Override
      public void close() {
        loop.close();
      }
    };
  }

  /**
   * The business insert every variant does: one row per message id, sent as one JDBC batch (a
   * single row for the per-record shapes).
   */
  static void insertEffects(Connection c, List<String> ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_EFFECT)) {
      if (ids.size() == 1) {
        ps.setString(1, ids.get(0));
        ps.setLong(2, ids.get(0).length());
        ps.executeUpdate();
        return;
      }
      for (String id : ids) {
        ps.setString(1, id);
        ps.setLong(2, id.length());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /**
   * The at-least-once loop without dedup: poll, write the rows, commit the poll's offsets. Per
   * record, each row is its own autocommit insert; as a batch, the poll's rows are one transaction.
   * A crash between the rows and the offset commit writes them again on redelivery.
   */
  private static final class BareLoop extends KafkaPollLoop {
    private final HikariDataSource pool;
    private final boolean batch;

    BareLoop(HikariDataSource pool, Map<String, Object> props, String topic, boolean batch) {
      super(props, topic);
      this.pool = pool;
      this.batch = batch;
    }

    @Override
    void write(ConsumerRecords<byte[], byte[]> records) throws SQLException {
      try (Connection c = pool.getConnection()) {
        if (!batch) {
          for (ConsumerRecord<byte[], byte[]> r : records) {
            insertEffects(c, List.of(id(r)));
          }
          return;
        }
        List<String> ids = new java.util.ArrayList<>(records.count());
        for (ConsumerRecord<byte[], byte[]> r : records) {
          ids.add(id(r));
        }
        c.setAutoCommit(false);
        try {
          insertEffects(c, ids);
          c.commit();
        } catch (SQLException | RuntimeException e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      }
    }

    private static String id(ConsumerRecord<byte[], byte[]> r) {
      Header h = r.headers().lastHeader(KafkaRun.ID_HEADER);
      if (h == null) {
        throw new IllegalStateException("record without " + KafkaRun.ID_HEADER + ": " + r);
      }
      return new String(h.value(), StandardCharsets.UTF_8);
    }
  }
}
