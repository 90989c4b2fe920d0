package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two application instances pruning one PostgreSQL table at the same moment, in batches of one row:
 * neither fails, every aged row is deleted exactly once between them (a row one instance deleted is
 * not counted by the other), and recent rows stay.
 */
class PruneOnSeveralInstancesTest {

  private static final int AGED = 200;
  private static EmbeddedPostgres server;

  @BeforeAll
  static void start() throws IOException {
    server =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("fsync", "off")
            .start();
  }

  @AfterAll
  static void stop() throws IOException {
    server.close();
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    DataSource dataSource() {
      return server.getPostgresDatabase();
    }
  }

  @Test
  void twoInstancesPruningTogetherDeleteEachRowOnce() throws Exception {
    ApplicationContextRunner instance =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues(
                "inbox.table=shared_inbox",
                "inbox.prune-batch-size=1",
                // Driven by hand below, not on a schedule.
                "inbox.prune.enabled=false",
                "inbox.consumers.orders.retention=7d");
    instance.run(
        first ->
            instance.run(
                second -> {
                  IdempotentConsumer orders =
                      first.getBean(InboxConsumers.class).idempotent("orders", (m, a) -> {});
                  for (int i = 0; i < AGED; i++) {
                    orders.consume(Message.of("old-" + i));
                  }
                  orders.consume(Message.of("new-1"));
                  new JdbcTemplate(server.getPostgresDatabase())
                      .update(
                          "UPDATE shared_inbox SET updated_at = updated_at - INTERVAL '30 days'"
                              + " WHERE message_id LIKE 'old-%'");

                  List<InboxPruner> pruners = new ArrayList<>();
                  for (var ctx : List.of(first, second)) {
                    JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
                    InboxConsumers consumers = ctx.getBean(InboxConsumers.class);
                    pruners.add(new InboxPruner(store, consumers, Duration.ofHours(1)));
                  }
                  long deleted = pruneTogether(pruners);
                  // A batch that lost every row to the other instance ends that instance's run
                  // early; whatever is left goes in the next run.
                  deleted += pruners.get(0).pruneNow().get("orders");

                  assertThat(deleted).isEqualTo(AGED);
                  JdbcInboxStore store = first.getBean(JdbcInboxStore.class);
                  assertThat(store.find("orders", "old-0")).isEmpty();
                  assertThat(store.find("orders", "old-" + (AGED - 1))).isEmpty();
                  assertThat(store.find("orders", "new-1")).isPresent();
                }));
  }

  // Both pruners start together behind one gate; returns the rows they deleted between them.
  private static long pruneTogether(List<InboxPruner> pruners) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(pruners.size());
    try {
      CountDownLatch gate = new CountDownLatch(1);
      List<Future<Map<String, Long>>> runs = new ArrayList<>();
      for (InboxPruner p : pruners) {
        runs.add(
            threads.submit(
                () -> {
                  gate.await();
                  return p.pruneNow();
                }));
      }
      gate.countDown();
      long deleted = 0;
      for (Future<Map<String, Long>> run : runs) {
        deleted += run.get(5, TimeUnit.MINUTES).get("orders");
      }
      return deleted;
    } finally {
      threads.shutdownNow();
    }
  }
}
