package dev.archlab.inbox;

/**
 * A fenced operation (complete, fail, extend, mark dead) was refused because the caller's claim is
 * no longer current: its lease expired and another instance took the message over, or the record
 * already reached a terminal state. The store was not changed. In transactional mode the caller's
 * business writes were rolled back with it.
 */
public class LeaseLostException extends InboxException {
  private static final long serialVersionUID = 1L;

  private final Claim claim;
  private final RecordState currentState;
  private final int currentAttempts;

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

  /** The stale claim that was refused. */
  public Claim claim() {
    return claim;
  }

  /** The state the record had when the claim was refused. */
  public RecordState currentState() {
    return currentState;
  }

  /** The attempts (current fencing token) the record had when the claim was refused. */
  public int currentAttempts() {
    return currentAttempts;
  }
}
