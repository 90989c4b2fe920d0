package dev.archlab.inbox.chaos;

/**
 * The parts of {@code docs/RELIABILITY.md} that no run's figures fill: the faults checked inside
 * one JVM by {@code inbox-jdbc} and {@code inbox-testkit} (each a test that fails the build), and
 * the closing notes on the setup and on what the figures do and do not depend on.
 */
final class InProcessFaults {

  private InProcessFaults() {}

  /** Appends the in-JVM fault table, the setup note and the closing paragraph. */
  static void append(StringBuilder md) {
    md.append("## Faults checked inside one JVM, on every database\n\n");
    md.append(
        "These need no process kills, so they run in `inbox-jdbc` and `inbox-testkit` on H2,"
            + " PostgreSQL and MariaDB alike (and the memory store where it applies), with"
            + " `./mvnw -B verify -pl inbox-jdbc -am`. Each fails the build if its fact does not"
            + " hold.\n\n");
    md.append("| fault | test | injected | must hold |\n|---|---|---|---|\n");
    md.append(
        "| stale owner | `JdbcStoreTest.staleOwnersBusinessWriteRollsBack`,"
            + " `staleOwnerWithHeartbeatRollsBack` | A's handler stalls past its lease (the"
            + " second variant freezes its heartbeat too, like a GC pause); B takes over and"
            + " commits | A's business row rolled back, one effect, LEASE_LOST fired once, record"
            + " DONE at attempt 2 |\n");
    md.append(
        "| bad input | `InboxStoreContractTest.badIdsAreRefusedEverywhere`,"
            + " `badConsumerNamesAreRefusedEverywhere`, `forgedClaimsChangeNothing`,"
            + " `payloadMismatchLeavesEveryRecordAlone`, `unusualValidIdsRoundTrip`,"
            + " `trailingSpacesAreSignificant`; `MessageIdFromUtf8Test`;"
            + " `JdbcStoreTest.tableNameInjectionIsRefused` | null, empty, whitespace,"
            + " no-break spaces, 10 KB, NUL and control characters, unpaired surrogates, malformed"
            + " UTF-8 bytes, SQL meta-characters, unicode, table names with quotes, comments,"
            + " look-alikes | a specific exception at every entry point; every other record read"
            + " back unchanged; valid unusual ids round-trip exactly |\n");
    md.append(
        "| pool exhaustion | `PoolAndRestartTest.poolSizedToWorkersNeverStalls` | W = 1"
            + " and 4 workers on a pool of exactly W (2 s borrow timeout), heartbeat every 3 ms,"
            + " a pruner and a reader running alongside | no borrow ever times out, no LEASE_LOST,"
            + " one business row per id (found and fixed: the heartbeat held a lock its worker"
            + " needed while waiting for a connection) |\n");
    md.append(
        "| restarts | `restartsNeverReopenDoneRecords` | every consumer, pool and store object"
            + " replaced twice, everything redelivered | all DUPLICATE, the handler never runs"
            + " again |\n");
    md.append(
        "| crash after claim | `crashAfterClaimIsRetriedAfterTheLease`,"
            + " `oneCommitCrashLeavesNothing` | the handler dies (an Error) after the claim |"
            + " lease mode: PROCESSING, no effect, IN_FLIGHT until the lease ends, then applied"
            + " at attempt 2; one-commit mode: no record at all, redelivery applies at once |\n");
    md.append(
        "| concurrent schema creation | `concurrentSchemaCreation` | six creators at once, five"
            + " rounds | all succeed (found by the kill suite and fixed: `CREATE TABLE IF NOT"
            + " EXISTS` races on PostgreSQL and H2, now re-run) |\n\n");
    md.append("## Setup note\n\n");
    md.append(
        "The driver deploys the schema once with `inbox migrate` before the consumers start, as"
            + " an operator would. Before the fix above, three `inbox simulate` processes started"
            + " at the same moment on an empty PostgreSQL database could race on `CREATE TABLE IF"
            + " NOT EXISTS` (about once in twenty starts one died with SQLState 23505 on"
            + " `pg_type_typname_nsp_index`); `createSchemaIfMissing()` now runs its idempotent"
            + " DDL again when that happens.\n\n");
    md.append(
        "Figures come from one run each; the recovery times depend on the machine's load (the"
            + " consumers, the server and the driver share its cores). The suite's verdict does"
            + " not: every row above is marked passed, which the suite writes only after the"
            + " end-state and fault checks held, and the renderer refuses a row that is not, or"
            + " that shows a double effect, a lost message or an unexpected DEAD.\n");
  }
}
