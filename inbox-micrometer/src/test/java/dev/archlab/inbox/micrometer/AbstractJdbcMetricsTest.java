package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.Fixtures.LEASE;
import static dev.archlab.inbox.micrometer.Fixtures.config;
import static dev.archlab.inbox.micrometer.Fixtures.consumeCount;
import static dev.archlab.inbox.micrometer.Fixtures.consumeTimer;
import static dev.archlab.inbox.micrometer.Fixtures.deliveries;
import static dev.archlab.inbox.micrometer.Fixtures.expiredLeases;
import static dev.archlab.inbox.micrometer.Fixtures.oldestAgeSeconds;
import static dev.archlab.inbox.micrometer.Fixtures.records;
import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxOperations;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.store.BeginRequest;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The meters on a real JDBC store: the gauges come from the database's own aggregate, and the
 * consume timer works around the one-commit and the batch consumer as around the single one.
 */
abstract class AbstractJdbcMetricsTest {

  private static final AtomicInteger TABLES = new AtomicInteger();

  private final MockClock ticker = new MockClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private JdbcInboxStore store;
  private InboxMetrics metrics;

  /** The database, started once per JVM. */
  abstract DataSource dataSource();

  @BeforeEach
  void freshTable() {
    store =
        JdbcInboxStore.builder(dataSource())
            .table("inbox_metrics_" + TABLES.incrementAndGet())
            .build();
    store.createSchemaIfMissing();
    metrics =
        InboxMetrics.builder()
            .stats(InboxStatsSource.of(new JdbcInboxOperations(store)))
            .statsInterval(Duration.ofMinutes(1))
            .clock(ticker)
            .consumers("orders", "idle")
            .build();
    metrics.bindTo(registry);
  }

  @Test
  void gaugesComeFromTheDatabase() {
    store.complete(store.begin(request("done", 3)).claim(), null);
    store.markDead(store.begin(request("poison", 3)).claim(), "parked");
    store.begin(request("held", 3)); // a live lease
    store.begin(request("stuck", 3));
    store.admin().release("orders", "stuck"); // its lease ends now: expired from here on
    Instant oldest = store.find("orders", "held").map(InboxRecord::createdAt).orElseThrow();

    Instant before = store.currentTime();
    double processing = records(registry, "orders", "processing"); // the first read is now
    Instant after = store.currentTime();

    assertThat(processing).isEqualTo(2.0);
    assertThat(records(registry, "orders", "done")).isEqualTo(1.0);
    assertThat(records(registry, "orders", "dead")).isEqualTo(1.0);
    assertThat(expiredLeases(registry, "orders")).isEqualTo(1.0);
    // The age is the database's now() at the read minus the oldest created_at.
    assertThat(oldestAgeSeconds(registry, "orders"))
        .isBetween(seconds(oldest, before) - 1e-6, seconds(oldest, after) + 1e-6);
    assertThat(records(registry, "idle", "processing")).isZero();
    assertThat(oldestAgeSeconds(registry, "idle")).isZero();
  }

  @Test
  void theOneCommitAndTheBatchConsumerAreTimedPerMessage() {
    OneCommitConsumer oneCommit =
        OneCommitConsumer.builder("orders", store)
            .config(config(3))
            .listener(metrics.listener())
            .handler((m, a, c) -> ticker.add(4, TimeUnit.MILLISECONDS))
            .build();
    BatchConsumer batch =
        BatchConsumer.builder("orders", store)
            .config(config(3))
            .listener(metrics.listener())
            .handler((ms, c) -> ticker.add(7, TimeUnit.MILLISECONDS))
            .build();
    ConsumeTimer timer = metrics.timer("orders");

    assertThat(timer.consume(Message.of("a"), oneCommit::consume).status())
        .isEqualTo(Outcome.Status.APPLIED);
    List<Outcome> outcomes =
        timer.consumeBatch(
            List.of(Message.of("a"), Message.of("b"), Message.of("b")), batch::consume);

    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(
            Outcome.Status.DUPLICATE, Outcome.Status.APPLIED, Outcome.Status.DUPLICATE);
    assertThat(consumeCount(registry, "orders", "applied")).isEqualTo(2);
    assertThat(consumeCount(registry, "orders", "duplicate")).isEqualTo(2);
    // The listener counts the same deliveries from events, with no timer around the calls.
    assertThat(deliveries(registry, "orders", "applied")).isEqualTo(2.0);
    assertThat(deliveries(registry, "orders", "duplicate")).isEqualTo(2.0);
    // One-commit: its 4 ms. Batch: each of its three messages waited the whole 7 ms call.
    assertThat(consumeTimer(registry, "orders", "applied").totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(11.0);
    assertThat(consumeTimer(registry, "orders", "duplicate").totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(14.0);
    assertThat(records(registry, "orders", "done")).isEqualTo(2.0);
  }

  private static BeginRequest request(String id, int maxAttempts) {
    return new BeginRequest("orders", id, LEASE, maxAttempts, null);
  }

  private static double seconds(Instant from, Instant to) {
    return Duration.between(from, to).toNanos() / 1e9;
  }
}
