package dev.archlab.inbox;

/**
 * A fenced operation (complete, fail, extend, mark dead) was refused because the caller's claim is
 * no longer current: its lease expired and another instance took the message over, or the record
 * already reached a terminal state. The store was not changed. In transactional mode the caller's
 * business writes were rolled back with it.
 */
public class LeaseLostException extends InboxException {
  private static final long serialVersionUID = 1L;

  /** The stale claim that was refused. */
  private final Claim claim;

  /** The record's state at refusal. */
  private final RecordState currentState;

  /** The record's attempt count at refusal. */
  private final int currentAttempts;

  /**
   * Creates the exception for a refused claim.
   *
   * @param claim the stale claim that was refused
   * @param currentState the state the record had when the claim was refused
   * @param currentAttempts the attempts (current fencing token) the record had then
   */
  public LeaseLostException(Claim claim, RecordState currentState, int currentAttempts) {
    super(
        "lease lost for message '"
            + claim.messageId()
            + "' of consumer '"
            + claim.consumer()
            + "': this claim holds fencing token "
            + claim.fencingToken()
            + " but the record is now "
            + currentState
            + " at attempt "
            + currentAttempts);
    this.claim = claim;
    this.currentState = currentState;
    this.currentAttempts = currentAttempts;
  }

  /**
   * The stale claim that was refused.
   *
   * @return the claim as the caller presented it
   */
  public Claim claim() {
    return claim;
  }

  /**
   * The state the record had when the claim was refused.
   *
   * @return the record's state at refusal
   */
  public RecordState currentState() {
    return currentState;
  }

  /**
   * The attempts (current fencing token) the record had when the claim was refused.
   *
   * @return the record's attempt count at refusal
   */
  public int currentAttempts() {
    return currentAttempts;
  }
}
