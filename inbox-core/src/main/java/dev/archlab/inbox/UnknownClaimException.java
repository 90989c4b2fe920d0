package dev.archlab.inbox;

/**
 * A fenced operation named a claim the store never issued: no record exists for its key, or its
 * fencing token is higher than any attempt the record has seen. The store was not changed.
 */
public class UnknownClaimException extends InboxException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception for a claim the store never issued.
   *
   * @param claim the claim that was refused
   * @param why what the store found instead, appended to the message
   */
  public UnknownClaimException(Claim claim, String why) {

    super(
        "unknown claim for message '"
            + claim.messageId()
            + "' of consumer '"
            + claim.consumer()
            + "' (fencing token "
            + claim.fencingToken()
            + "): "
            + why);
  }
}
