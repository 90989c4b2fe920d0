package dev.archlab.inbox.cli;

import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.Outcome;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicLong;

/** What a simulation run counted: consume calls by outcome, crashes, takeovers and errors. */
final class SimulationTally {
  final AtomicLong calls = new AtomicLong();
  final AtomicLong applied = new AtomicLong();
  final AtomicLong duplicate = new AtomicLong();
  final AtomicLong inFlight = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong dead = new AtomicLong();
  final AtomicLong crashes = new AtomicLong();
  final AtomicLong takeovers = new AtomicLong();
  final AtomicLong retries = new AtomicLong();
  final AtomicLong leaseLost = new AtomicLong();
  final AtomicLong storeErrors = new AtomicLong();

  /** Counts one consume call's outcome. */
  void count(Outcome o) {
    switch (o.status()) {
      case APPLIED:
        applied.incrementAndGet();
        break;
      case DUPLICATE:
        duplicate.incrementAndGet();
        break;
      case DEAD:
        dead.incrementAndGet();
        break;
      case IN_FLIGHT:
        inFlight.incrementAndGet();
        break;
      default:
        failed.incrementAndGet();
    }
  }

  /** Counts takeovers and retries from the consumer's events. */
  InboxListener listener() {
    return e -> {
      // A due retry after a failure is not a takeover: only expired leases count there.
      if (e.kind() == InboxEvent.Kind.TAKEOVER) {
        takeovers.incrementAndGet();
      } else if (e.kind() == InboxEvent.Kind.RETRY) {
        retries.incrementAndGet();
      }
    };
  }

  /**
   * Prints the counts, the end state and the verdict under {@code header}; returns the exit code,
   * OK only for exactly one effect per id.
   *
   * @param effects effect rows, distinct ids with an effect, most effects of one id
   * @param states DONE ids, DEAD ids, DEAD planted poison ids
   */
  int report(
      PrintWriter out,
      String header,
      int messages,
      int poison,
      long[] effects,
      long[] states,
      double seconds) {
    out.println(header);
    long doneIds = states[0];
    long deadIds = states[1];
    long poisonDead = states[2];
    long unexpectedDead = deadIds - poisonDead;
    boolean exactlyOnce =
        effects[0] == effects[1]
            && effects[1] == doneIds
            && effects[2] <= 1
            && doneIds + deadIds == messages;

    out.printf("  deliveries       %10d  (consume calls, redeliveries included)%n", calls.get());
    out.printf("  applied          %10d%n", applied.get());
    out.printf("  duplicates       %10d%n", duplicate.get());
    out.printf("  in-flight        %10d  (redelivered later)%n", inFlight.get());
    out.printf("  failed           %10d%n", failed.get());
    out.printf("  crashes          %10d  (handler died after the claim)%n", crashes.get());
    out.printf("  takeovers        %10d  (expired claims taken over)%n", takeovers.get());
    out.printf("  retries          %10d  (failed attempts retried after backoff)%n", retries.get());
    out.printf(
        "  lease lost       %10d  (completions refused: claim taken over meanwhile)%n",
        leaseLost.get());
    out.printf("  store errors     %10d%n", storeErrors.get());
    out.printf(
        "  DONE ids         %10d   DEAD ids %d (planted poison %d, other %d)%n",
        doneIds, deadIds, poison, unexpectedDead);
    out.printf(
        "  effects          %10d   distinct %d   most per id %d%n",
        effects[0], effects[1], effects[2]);
    out.printf(
        "  throughput       %10.0f deliveries/s over %.1f s%n", calls.get() / seconds, seconds);
    out.printf("verdict: %s%n", exactlyOnce ? "EXACTLY ONE EFFECT PER ID" : "VIOLATION");
    return exactlyOnce ? InboxCli.OK : InboxCli.FAILURE;
  }
}
