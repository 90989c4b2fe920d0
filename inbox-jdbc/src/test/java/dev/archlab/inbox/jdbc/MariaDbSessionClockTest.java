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
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What only a MariaDB server can show, apart from the suites every database runs ({@link
 * JdbcStoreTest} and the others registered through {@link TestDatabases}): leases follow the
 * database session's clock. Runs on each registered database served by MariaDB (its own dialect and
 * the MySQL dialect on it), named after it; reported as skipped, without starting the server, for
 * each that {@value TestDatabases#PROPERTY} leaves out.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("onMariaDbServer")
class MariaDbSessionClockTest {

  /** The registered databases whose server is MariaDB. */
  private static final Set<String> ON_MARIADB_SERVER = Set.of("mariadb", "mysql");

  static final String TABLE = JdbcStoreTest.TABLE;

  /** The database this run is on, started on first use. */
  @Parameter TestDatabases.Registered registered;

  JdbcInboxStore store;

  /** Selected or not: an unselected one reports its runs as skipped, with the reason. */
  static List<TestDatabases.Registered> onMariaDbServer() {
    return TestDatabases.all().stream().filter(r -> ON_MARIADB_SERVER.contains(r.name())).toList();
  }

  TestDatabase database() {
    return registered.get();
  }

  @BeforeEach
  void freshTable() throws SQLException {
    TestDatabases.assumeSelected(registered.name());
    store = database().freshStore(TABLE);
  }

  BeginResult begin(String consumer, String id) {
    return store.begin(new BeginRequest(consumer, id, JdbcStoreTest.LEASE, 5, null));
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
            .config(JdbcStoreTest.config(5))
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
              .config(JdbcStoreTest.config(5))
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
