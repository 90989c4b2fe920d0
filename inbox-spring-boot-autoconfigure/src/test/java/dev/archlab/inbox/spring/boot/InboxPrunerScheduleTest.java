package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The prune schedule, driven by hand: the pruner asks for runs every {@code inbox.prune.interval},
 * each run prunes, a failed run neither throws (which would end the schedule) nor stops the next
 * one, and stopping the context stops the runs.
 */
class InboxPrunerScheduleTest {

  @Configuration(proxyBeanMethods = false)
  static class H2 {
    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(
          "jdbc:h2:mem:"
              + UUID.randomUUID()
              + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
      return ds;
    }
  }

  /** Records what the pruner scheduled; the test runs the task itself. */
  static final class HandDrivenSchedule implements PruneSchedule {
    Runnable task;
    Duration interval;
    final AtomicInteger stops = new AtomicInteger();

    @Override
    public Runnable start(Runnable task, Duration interval) {
      this.task = task;
      this.interval = interval;
      return stops::incrementAndGet;
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
          .withUserConfiguration(H2.class)
          .withPropertyValues("inbox.prune.enabled=false", "inbox.consumers.orders.retention=7d");

  @Test
  void eachScheduledRunPrunesAndAFailedRunDoesNotEndTheSchedule() {
    runner.run(
        ctx -> {
          JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
          InboxConsumers consumers = ctx.getBean(InboxConsumers.class);
          HandDrivenSchedule schedule = new HandDrivenSchedule();
          InboxPruner pruner = new InboxPruner(store, consumers, Duration.ofMinutes(15), schedule);
          assertThat(pruner.isRunning()).isFalse();
          pruner.start();
          assertThat(pruner.isRunning()).isTrue();
          assertThat(schedule.interval).isEqualTo(Duration.ofMinutes(15));
          pruner.start(); // already running: not scheduled twice
          assertThat(schedule.stops).hasValue(0);

          IdempotentConsumer orders = consumers.idempotent("orders", (m, a) -> {});
          for (String id : List.of("old-1", "new-1")) {
            orders.consume(Message.of(id));
          }
          JdbcTemplate jdbc = new JdbcTemplate(ctx.getBean(DataSource.class));
          jdbc.update(
              "UPDATE inbox SET updated_at = updated_at - INTERVAL '30' DAY"
                  + " WHERE message_id = 'old-1'");

          // A run while the table is unreachable fails inside the task, not out of it.
          jdbc.execute("ALTER TABLE inbox RENAME TO inbox_away");
          schedule.task.run();
          jdbc.execute("ALTER TABLE inbox_away RENAME TO inbox");
          assertThat(store.find("orders", "old-1")).isPresent();

          schedule.task.run();
          assertThat(store.find("orders", "old-1")).isEmpty();
          assertThat(store.find("orders", "new-1")).isPresent();

          pruner.stop();
          assertThat(schedule.stops).hasValue(1);
          assertThat(pruner.isRunning()).isFalse();
        });
  }

  /** Keeps every event of every consumer; wraps consume calls without observing them. */
  static final class RecordingObservation implements ConsumerObservation {
    final List<InboxEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public InboxListener listener(String consumer) {
      return events::add;
    }

    @Override
    public Outcome consume(
        String consumer, Message message, Function<? super Message, Outcome> consume) {
      return consume.apply(message);
    }
  }

  @Test
  void aScheduledRunIsReportedAsAPruneOfEachConsumer() {
    RecordingObservation observation = new RecordingObservation();
    runner
        .withBean(ConsumerObservation.class, () -> observation)
        .run(
            ctx -> {
              JdbcInboxStore store = ctx.getBean(JdbcInboxStore.class);
              InboxConsumers consumers = ctx.getBean(InboxConsumers.class);
              HandDrivenSchedule schedule = new HandDrivenSchedule();
              InboxPruner pruner =
                  new InboxPruner(store, consumers, Duration.ofMinutes(15), schedule);
              IdempotentConsumer orders = consumers.idempotent("orders", (m, a) -> {});
              for (String id : List.of("old-1", "old-2", "new-1")) {
                orders.consume(Message.of(id));
              }
              new JdbcTemplate(ctx.getBean(DataSource.class))
                  .update(
                      "UPDATE inbox SET updated_at = updated_at - INTERVAL '30' DAY"
                          + " WHERE message_id LIKE 'old-%'");
              observation.events.clear();

              pruner.start();
              schedule.task.run();
              pruner.stop();

              // The same event a consumer's own pruneExpired() emits, so the prune meters count it.
              assertThat(observation.events)
                  .singleElement()
                  .satisfies(
                      e -> {
                        assertThat(e.kind()).isEqualTo(InboxEvent.Kind.PRUNED);
                        assertThat(e.consumer()).isEqualTo("orders");
                        assertThat(e.count()).isEqualTo(2);
                      });
            });
  }

  @Test
  void theAutoConfiguredPrunerUsesTheConfiguredInterval() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
        .withUserConfiguration(H2.class)
        .withPropertyValues("inbox.prune.interval=0s")
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("inbox.prune.interval must be positive"));
  }
}
