package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The outbox gauges on a real outbox table (H2): per-state counts, the oldest age, one read. */
class OutboxMetersTest {

  private JdbcDataSource ds;
  private Outbox outbox;
  private final MockClock clock = new MockClock();
  private SimpleMeterRegistry registry;
  private OutboxMeters meters;

  @BeforeEach
  void twoPendingOneDead() throws Exception {
    ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    outbox = Outbox.builder(ds).build();
    outbox.createSchemaIfMissing();
    try (Connection c = ds.getConnection()) {
      for (int i = 0; i < 3; i++) {
        outbox.send(c, OutboxMessage.of("payments", "k", new byte[] {1}));
      }
    }
    execute(
        "UPDATE inbox_outbox SET state = 'DEAD' WHERE seq = (SELECT MIN(seq) FROM inbox_outbox)");
    registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
    meters = new OutboxMeters(outbox.admin(), "inbox_outbox", Duration.ofSeconds(30));
    meters.bindTo(registry);
  }

  private void execute(String sql) throws Exception {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private double messages(String state) {
    return registry
        .get(OutboxMeters.MESSAGES)
        .tags("outbox", "inbox_outbox", "state", state)
        .gauge()
        .value();
  }

  private double oldestSeconds() {
    return registry.get(OutboxMeters.OLDEST_PENDING).timeGauge().value(TimeUnit.SECONDS);
  }

  @Test
  void gaugesShowTheBacklogPerStateAndTheOldestPendingAge() {
    assertThat(messages("pending")).isEqualTo(2);
    assertThat(messages("dead")).isEqualTo(1);
    assertThat(messages("sent")).isZero();
    assertThat(oldestSeconds()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void everyGaugeAndScrapeWithinTheIntervalIsServedFromOneRead() throws Exception {
    messages("pending");
    messages("dead");
    oldestSeconds();
    execute("DELETE FROM inbox_outbox");
    assertThat(messages("pending")).as("still the snapshot").isEqualTo(2);
    assertThat(meters.reads()).isEqualTo(1);
    clock.add(Duration.ofSeconds(30));
    assertThat(messages("pending")).isZero();
    assertThat(oldestSeconds()).as("nothing pending").isZero();
    assertThat(meters.reads()).isEqualTo(2);
  }

  @Test
  void aFailedReadShowsNanAndIsNotRetriedBeforeTheInterval() throws Exception {
    execute("DROP TABLE inbox_outbox");
    assertThat(messages("pending")).isNaN();
    assertThat(messages("dead")).isNaN();
    assertThat(meters.reads()).isEqualTo(1);
    outbox.createSchemaIfMissing();
    clock.add(Duration.ofSeconds(30));
    assertThat(messages("pending")).isZero();
    assertThat(meters.reads()).isEqualTo(2);
  }

  @Test
  void aNonPositiveIntervalIsRefused() {
    assertThatThrownBy(() -> new OutboxMeters(outbox.admin(), "o", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval must be positive");
  }
}
