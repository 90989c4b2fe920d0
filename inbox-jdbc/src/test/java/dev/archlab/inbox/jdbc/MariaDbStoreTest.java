package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RecordState;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The database-only behaviour on MariaDB. */
class MariaDbStoreTest extends AbstractJdbcStoreTest {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    // seq_1_to_N is MariaDB's built-in sequence table.
    database()
        .execute(
            "INSERT INTO "
                + table
                + " (consumer, message_id, state, attempts, created_at, updated_at)"
                + " SELECT 'old', CONCAT('old-', seq), 'DONE', 1,"
                + " UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) - INTERVAL 1 DAY"
                + " FROM seq_1_to_"
                + rows);
  }

  /**
   * MariaDB lets a session set its own clock: after {@code SET timestamp = …}, {@code NOW()} and
   * {@code UTC_TIMESTAMP(6)} (the dialect's clock) return that time, frozen, on that session only.
   * So the database clock can be put hours ahead for one consumer while the JVM clock stays put,
   * and the other way round, which shows which clock the leases follow. Frozen is fine here: each
   * consumer's statements all run within the lease they compare against.
   */
  @Test
  @DisplayName("leases follow the database session's clock, not the consumer's JVM clock")
  void leasesFollowTheDatabaseSessionClock() {
    Duration ahead = Duration.ofHours(5);
    Claim ownerA = begin("clock", "db-clock").claim();
    AtomicInteger runs = new AtomicInteger();

    // The JVM side 5 h ahead (its injected clock), the database session as it is: no takeover.
    IdempotentConsumer jvmAhead =
        IdempotentConsumer.builder("clock", store)
            .handler((m, a) -> runs.incrementAndGet())
            .config(config(5))
            .clock(Clock.offset(Clock.systemUTC(), ahead))
            .build();
    assertThat(jvmAhead.consume(Message.of("db-clock")).status()).isEqualTo(Status.IN_FLIGHT);

    // The database session 5 h ahead, the JVM clock as it is: A's 30 s lease has run out there.
    // Its clock is fixed when its connection opens, between the two reads bracketing it below.
    Instant before = store.currentTime();
    try (HikariDataSource aheadPool =
        database().newPool(1, "SET timestamp = UNIX_TIMESTAMP(NOW(6)) + " + ahead.toSeconds())) {
      JdbcInboxStore aheadStore = database().storeBuilder(aheadPool).table(TABLE).build();
      Instant aheadNow = aheadStore.currentTime();
      Instant after = store.currentTime();
      assertThat(aheadNow)
          .as("the session's database clock is 5 h ahead")
          .isBetween(before.plus(ahead).minusSeconds(1), after.plus(ahead).plusSeconds(1));
      IdempotentConsumer dbAhead =
          IdempotentConsumer.builder("clock", aheadStore)
              .handler((m, a) -> runs.incrementAndGet())
              .config(config(5))
              .build();
      Outcome takenOver = dbAhead.consume(Message.of("db-clock"));
      assertThat(takenOver.status()).isEqualTo(Status.APPLIED);
      assertThat(takenOver.attempts()).isEqualTo(2);
    }
    assertThat(runs).hasValue(1);
    assertThatThrownBy(() -> store.complete(ownerA, null)).isInstanceOf(LeaseLostException.class);
    assertThat(store.find("clock", "db-clock").orElseThrow().state()).isEqualTo(RecordState.DONE);
  }
}
