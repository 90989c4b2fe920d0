package dev.archlab.inbox.testkit;

import java.util.HashMap;
import java.util.Map;

/**
 * For linearizability checkers such as Lincheck: the store's contract for {@code begin}, plain
 * {@code complete} and {@code find} as a plain sequential object, for Lincheck to compare
 * concurrent histories against. Leases never run out here (the tests' leases outlast them), so a
 * PROCESSING record answers IN_FLIGHT.
 */
public class InboxSequentialSpec {

  private record Rec(String state, int attempts, String hash) {}

  private final Map<Integer, Rec> records = new HashMap<>();

  /** An empty store. */
  public InboxSequentialSpec() {}

  /**
   * What {@code begin} answers for message {@code id}.
   *
   * @param id the message, by number
   * @param hash the payload hash by number; 0 for none
   * @return the decision's kind, or MISMATCH for a payload mismatch
   */
  public String begin(int id, int hash) {
    String h = hash == 0 ? null : "h" + hash;
    Rec r = records.get(id);
    if (r == null) {
      records.put(id, new Rec("PROCESSING", 1, h));
      return "CLAIMED";
    }
    if (h != null && r.hash != null && !h.equals(r.hash)) {
      return "MISMATCH";
    }
    return r.state.equals("DONE") ? "DUPLICATE" : "IN_FLIGHT";
  }

  /**
   * What a plain {@code complete} answers for a claim of message {@code id} with {@code token}.
   *
   * @param id the message, by number
   * @param token the claim's fencing token
   * @return DONE, LOST (lease lost) or UNKNOWN (no record, or a token never issued)
   */
  public String complete(int id, int token) {
    Rec r = records.get(id);
    if (r == null || token > r.attempts) {
      return "UNKNOWN";
    }
    if (!r.state.equals("PROCESSING") || r.attempts != token) {
      return "LOST";
    }
    records.put(id, new Rec("DONE", r.attempts, r.hash));
    return "DONE";
  }

  /**
   * What {@code find} sees for message {@code id}.
   *
   * @param id the message, by number
   * @return "absent", or the record's state and attempts as {@code STATE/attempts}
   */
  public String find(int id) {
    Rec r = records.get(id);
    return r == null ? "absent" : r.state + "/" + r.attempts;
  }

  /**
   * The same contract, with both refusals of a {@code complete} reported as REFUSED, for stores
   * that decide the refusal atomically but read its reason afterwards (the JDBC store: a fenced
   * UPDATE that matched no row, then a read of the record to say why, so a record inserted between
   * the two makes an UNKNOWN claim read as LOST).
   */
  public static class RefusalsFolded extends InboxSequentialSpec {

    /** An empty store. */
    public RefusalsFolded() {}

    /**
     * Like {@link InboxSequentialSpec#complete}, with LOST and UNKNOWN both REFUSED.
     *
     * @param id the message, by number
     * @param token the claim's fencing token
     * @return DONE or REFUSED
     */
    @Override
    public String complete(int id, int token) {
      String answer = super.complete(id, token);
      return answer.equals("DONE") ? answer : "REFUSED";
    }
  }
}
