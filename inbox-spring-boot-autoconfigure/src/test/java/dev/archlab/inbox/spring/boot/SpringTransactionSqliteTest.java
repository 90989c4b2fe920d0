package dev.archlab.inbox.spring.boot;

import static dev.archlab.inbox.spring.boot.SpringTransactionTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link SpringTransactionalConsumer} on SQLite, where the claim and a failed attempt are written
 * in the Spring transaction itself: a poison message is counted attempt by attempt and ends DEAD,
 * with none of the handler's rows committed; inside a caller's transaction the caller's writes
 * still roll back.
 */
class SpringTransactionSqliteTest {

  @TempDir static Path dir;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
          .withUserConfiguration(SpringTransactionTest.SpringJdbc.class)
          .withBean(DataSource.class, SpringTransactionSqliteTest::sqliteFile)
          .withPropertyValues(
              "inbox.consumers.orders.max-attempts=3",
              "inbox.consumers.orders.backoff.initial-delay=10ms",
              "inbox.consumers.orders.backoff.max-delay=10ms",
              "inbox.consumers.orders.backoff.jitter=0",
              "inbox.prune.enabled=false");

  // A Spring JDBC application on one SQLite file, as the CLI's embedded default uses.
  private static DataSource sqliteFile() {
    DataSource ds = SqliteDialect.dataSource(dir.resolve("spring.db"));
    new JdbcTemplate(ds).execute("CREATE TABLE IF NOT EXISTS orders (id VARCHAR(100))");
    return ds;
  }

  @Test
  void aPoisonMessageIsCountedAttemptByAttemptAndEndsDead() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
          AtomicInteger runs = new AtomicInteger();
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders",
                      (m, a) -> {
                        runs.incrementAndGet();
                        jdbc.update("INSERT INTO orders VALUES (?)", m.id());
                        throw new IllegalStateException("payment service refused");
                      });

          // Redeliver as a broker would: an IN_FLIGHT answer (the retry is not due yet) waits for
          // its retryAfter, which is at least the 10 ms backoff, so every wait makes the retry due.
          List<Outcome.Status> ran = new ArrayList<>();
          for (int delivery = 0;
              delivery < 1_000 && !ran.contains(Outcome.Status.DEAD);
              delivery++) {
            Outcome outcome = orders.consume(Message.of("poison-1"));
            if (outcome.status() == Outcome.Status.IN_FLIGHT) {
              Thread.sleep(
                  outcome.retryAfter() == null ? 10 : Math.max(1, outcome.retryAfter().toMillis()));
            } else {
              ran.add(outcome.status());
            }
          }

          assertThat(ran)
              .containsExactly(Outcome.Status.FAILED, Outcome.Status.FAILED, Outcome.Status.DEAD);
          assertThat(runs).hasValue(3);
          InboxRecord dead = store.find("orders", "poison-1").orElseThrow();
          assertThat(dead.state()).isEqualTo(RecordState.DEAD);
          assertThat(dead.attempts()).isEqualTo(3);
          assertThat(dead.lastError()).contains("payment service refused");
          assertThat(rows(jdbc, "poison-1")).as("no failed attempt's row committed").isZero();
          // Parked: a later delivery runs nothing.
          assertThat(orders.consume(Message.of("poison-1")).status())
              .isEqualTo(Outcome.Status.DEAD);
          assertThat(runs).hasValue(3);
        });
  }

  @Test
  void aSuccessfulHandlerCommitsItsRowAndDoneTogether() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders", (m, a) -> jdbc.update("INSERT INTO orders VALUES (?)", m.id()));

          assertThat(orders.consume(Message.of("ok-1")).status()).isEqualTo(Outcome.Status.APPLIED);
          assertThat(orders.consume(Message.of("ok-1")).status())
              .isEqualTo(Outcome.Status.DUPLICATE);

          assertThat(rows(jdbc, "ok-1")).isEqualTo(1);
          assertThat(ctx.getBean(JdbcInboxStore.class).find("orders", "ok-1").orElseThrow().state())
              .isEqualTo(RecordState.DONE);
        });
  }

  @Test
  void aFailureInsideTheCallersTransactionStillRollsItBack() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders",
                      (m, a) -> {
                        throw new IllegalStateException("refused");
                      });
          TransactionTemplate tx =
              new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));

          assertThatThrownBy(
                  () ->
                      tx.executeWithoutResult(
                          status -> {
                            jdbc.update("INSERT INTO orders VALUES ('caller-own-row')");
                            assertThat(orders.consume(Message.of("outer-fail-1")).status())
                                .isEqualTo(Outcome.Status.FAILED);
                          }))
              .isInstanceOf(UnexpectedRollbackException.class);

          // The caller's row did not commit; nor did the attempt, which was written beside it.
          assertThat(rows(jdbc, "caller-own-row")).isZero();
          assertThat(ctx.getBean(JdbcInboxStore.class).find("orders", "outer-fail-1")).isEmpty();
        });
  }
}
