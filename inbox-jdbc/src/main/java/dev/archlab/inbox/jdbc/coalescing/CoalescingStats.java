package dev.archlab.inbox.jdbc.coalescing;

/**
 * Counters of a coalescing store since it was built: flushes of each kind and the requests they
 * held. Each flush holds at least one request, so {@link #claimsPerFlush()} and {@link
 * #completionsPerFlush()} are at least 1 once anything was flushed; 1 means no sharing.
 *
 * @param claimFlushes batch claims sent
 * @param claims {@code begin} calls those flushes answered
 * @param completionFlushes batch completions sent
 * @param completions plain {@code complete} calls those flushes answered
 */
public record CoalescingStats(
    long claimFlushes, long claims, long completionFlushes, long completions) {

  /** Average claims per flush, or 0 before the first. */
  public double claimsPerFlush() {
    return claimFlushes == 0 ? 0 : (double) claims / claimFlushes;
  }

  /** Average completions per flush, or 0 before the first. */
  public double completionsPerFlush() {
    return completionFlushes == 0 ? 0 : (double) completions / completionFlushes;
  }
}
