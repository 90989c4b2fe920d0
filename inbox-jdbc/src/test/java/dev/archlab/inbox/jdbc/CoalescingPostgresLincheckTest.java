package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.testkit.InboxSequentialSpec;
import dev.archlab.inbox.testkit.LongRun;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the coalescing store on embedded PostgreSQL, checked by Lincheck in stress
 * mode (real threads, real flushes) against {@link InboxSequentialSpec}: every history of
 * concurrent {@code begin}, plain {@code complete} and {@code find} calls must be explainable by
 * some sequential order. Which refusal a failed {@code complete} reports is not checked (both fold
 * into REFUSED): Lincheck showed it is not linearizable in the store's single-call path either,
 * since the reason is read after the fenced UPDATE missed (a {@code begin} inserting the record in
 * between turns UNKNOWN into LOST); whether the completion was refused is. A small scenario: the
 * database makes each invocation slow. Each invocation gets a consumer name of its own, so it
 * starts from an empty keyspace without a DELETE.
 *
 * <p>CI runs {@value #DEFAULT_ITERATIONS} scenarios of 25 invocations (a few seconds); the long run
 * by hand, {@code -Dinbox.test.long=true} ({@link LongRun}), runs {@value #LONG_ITERATIONS}, and
 * {@code -Dinbox.lincheck.pg.iterations=N} any other number. Tagged {@code lincheck}: the module's
 * build runs it in a JVM of its own (see its pom). Skipped, without starting the server, when
 * {@value TestDatabases#PROPERTY} leaves PostgreSQL out.
 */
@Tag("lincheck")
@Param(name = "id", gen = IntGen.class, conf = "1:2")
@Param(name = "token", gen = IntGen.class, conf = "1:2")
@Param(name = "hash", gen = IntGen.class, conf = "0:2")
public class CoalescingPostgresLincheckTest {

  static final int DEFAULT_ITERATIONS = 5;
  static final int LONG_ITERATIONS = 20;

  private static final String TABLE = "inbox_coalesced_lincheck";
  private static final Duration LEASE = Duration.ofMinutes(10);
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private static JdbcInboxStore shared;

  private final String consumer = "lin" + INSTANCES.incrementAndGet();
  // JUnit builds an instance before the test can skip: start nothing then for an unselected server.
  private final JdbcInboxStore store = TestDatabases.isSelected("postgresql") ? store() : null;

  private static synchronized JdbcInboxStore store() {
    if (shared == null) {
      TestDatabase db = PostgresDatabase.get();
      shared = db.storeBuilder(db.dataSource()).table(TABLE).coalescing(true).build();
      shared.createSchemaIfMissing();
    }
    return shared;
  }

  @Operation
  public String begin(@Param(name = "id") int id, @Param(name = "hash") int hash) {
    try {
      return store
          .begin(
              new dev.archlab.inbox.store.BeginRequest(
                  consumer, "m" + id, LEASE, 3, hash == 0 ? null : "h" + hash))
          .kind()
          .name();
    } catch (PayloadMismatchException e) {
      return "MISMATCH";
    }
  }

  @Operation
  public String complete(@Param(name = "id") int id, @Param(name = "token") int token) {
    try {
      store.complete(new Claim(consumer, "m" + id, token, Instant.EPOCH), null);
      return "DONE";
    } catch (LeaseLostException | UnknownClaimException e) {
      // Which of the two is read after the refusal, not with it: see RefusalsFolded.
      return "REFUSED";
    }
  }

  @Operation
  public String find(@Param(name = "id") int id) {
    return store.find(consumer, "m" + id).map(r -> r.state() + "/" + r.attempts()).orElse("absent");
  }

  @Test
  void linearizableUnderStress() {
    TestDatabases.assumeSelected("postgresql");
    new StressOptions()
        .sequentialSpecification(InboxSequentialSpec.RefusalsFolded.class)
        .iterations(
            Integer.getInteger(
                "inbox.lincheck.pg.iterations", LongRun.pick(DEFAULT_ITERATIONS, LONG_ITERATIONS)))
        .invocationsPerIteration(25)
        .threads(3)
        .actorsPerThread(2)
        .check(CoalescingPostgresLincheckTest.class);
  }
}
