package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link SpringTransactionalConsumer} on a real PostgreSQL server: the handler writes through
 * {@link JdbcTemplate} (no connection in its code) and its row commits together with DONE, or
 * neither does.
 */
class SpringTransactionTest {

  private static EmbeddedPostgres server;

  @BeforeAll
  static void start() throws IOException {
    server =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("fsync", "off")
            .start();
    new JdbcTemplate(server.getPostgresDatabase())
        .execute("CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY)");
  }

  @AfterAll
  static void stop() throws IOException {
    server.close();
  }

  /**
   * The application's own beans on its {@code DataSource} (given to the runner), as a Spring Boot
   * JDBC application has them.
   */
  @Configuration(proxyBeanMethods = false)
  static class SpringJdbc {
    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
          .withUserConfiguration(SpringJdbc.class)
          .withBean(DataSource.class, () -> server.getPostgresDatabase())
          .withPropertyValues(
              "inbox.table=tx_inbox",
              "inbox.consumers.orders.max-attempts=1",
              "inbox.prune.enabled=false");

  static long rows(JdbcTemplate jdbc, String id) {
    return jdbc.queryForObject("SELECT count(*) FROM orders WHERE id = ?", Long.class, id);
  }

  private static Optional<RecordState> state(JdbcInboxStore store, String id) {
    return store.find("orders", id).map(InboxRecord::state);
  }

  @Test
  void successfulHandlerCommitsItsRowAndDoneTogether() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders", (m, a) -> jdbc.update("INSERT INTO orders VALUES (?)", m.id()));

          assertThat(orders.consume(Message.of("ok-1")).status()).isEqualTo(Outcome.Status.APPLIED);

          assertThat(rows(jdbc, "ok-1")).isEqualTo(1);
          assertThat(state(ctx.getBean(JdbcInboxStore.class), "ok-1")).contains(RecordState.DONE);
        });
  }

  @Test
  void failingHandlerLeavesNeitherItsRowNorDone() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders",
                      (m, a) -> {
                        jdbc.update("INSERT INTO orders VALUES (?)", m.id());
                        throw new IllegalStateException("payment service refused");
                      });

          // max-attempts=1: the failure parks the message as DEAD (recorded on the store's own
          // connection); the row written before the exception must be rolled back.
          assertThat(orders.consume(Message.of("fail-1")).status()).isEqualTo(Outcome.Status.DEAD);

          assertThat(rows(jdbc, "fail-1")).isZero();
          assertThat(state(ctx.getBean(JdbcInboxStore.class), "fail-1")).contains(RecordState.DEAD);
        });
  }

  @Test
  void messageDeliveredThreeTimesWritesOneRow() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders", (m, a) -> jdbc.update("INSERT INTO orders VALUES (?)", m.id()));

          assertThat(orders.consume(Message.of("dup-1")).status())
              .isEqualTo(Outcome.Status.APPLIED);
          assertThat(orders.consume(Message.of("dup-1")).status())
              .isEqualTo(Outcome.Status.DUPLICATE);
          assertThat(orders.consume(Message.of("dup-1")).status())
              .isEqualTo(Outcome.Status.DUPLICATE);

          assertThat(rows(jdbc, "dup-1")).isEqualTo(1);
        });
  }

  @Test
  void doneIsWrittenInTheCallersTransactionSoItsRollbackUndoesBoth() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders", (m, a) -> jdbc.update("INSERT INTO orders VALUES (?)", m.id()));
          TransactionTemplate tx =
              new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));

          // Like a @Transactional method: consume joins it, then the method fails afterwards.
          tx.executeWithoutResult(
              status -> {
                assertThat(orders.consume(Message.of("outer-1")).status())
                    .isEqualTo(Outcome.Status.APPLIED);
                // Inside the transaction DONE is already there: same connection.
                assertThat(
                        jdbc.queryForObject(
                            "SELECT state FROM tx_inbox WHERE message_id = 'outer-1'",
                            String.class))
                    .isEqualTo("DONE");
                status.setRollbackOnly();
              });

          // Neither the row nor DONE committed: the claim (committed before the handler ran) is
          // still PROCESSING, so a redelivery runs the handler again.
          assertThat(rows(jdbc, "outer-1")).isZero();
          assertThat(state(store, "outer-1")).contains(RecordState.PROCESSING);
        });
  }

  @Test
  void failureInsideCallersTransactionMakesItRollBack() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders",
                      (m, a) -> {
                        jdbc.update("INSERT INTO orders VALUES (?)", m.id());
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
                                .isEqualTo(Outcome.Status.DEAD);
                          }))
              .isInstanceOf(UnexpectedRollbackException.class);

          assertThat(rows(jdbc, "outer-fail-1")).isZero();
          assertThat(rows(jdbc, "caller-own-row")).isZero();
        });
  }

  @Test
  void duplicateInsideCallersTransactionLetsItCommit() {
    runner.run(
        ctx -> {
          JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
          SpringTransactionalConsumer orders =
              ctx.getBean(InboxConsumers.class)
                  .transactional(
                      "orders", (m, a) -> jdbc.update("INSERT INTO orders VALUES (?)", m.id()));
          orders.consume(Message.of("dup-outer-1"));
          TransactionTemplate tx =
              new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));

          tx.executeWithoutResult(
              status -> {
                jdbc.update("INSERT INTO orders VALUES ('after-duplicate')");
                assertThat(orders.consume(Message.of("dup-outer-1")).status())
                    .isEqualTo(Outcome.Status.DUPLICATE);
              });

          assertThat(rows(jdbc, "after-duplicate")).isEqualTo(1);
        });
  }
}
