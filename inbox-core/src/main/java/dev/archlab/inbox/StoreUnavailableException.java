package dev.archlab.inbox;

/**
 * The store could not be reached or did not answer (connection refused or lost, timeout). The
 * operation may or may not have taken effect; retrying the whole delivery is safe because every
 * store operation is idempotent or fenced.
 */
public class StoreUnavailableException extends InboxException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what could not be done, naming the store operation
   * @param cause the driver's or pool's failure
   */
  public StoreUnavailableException(String message, Throwable cause) {

    super(message, cause);
  }
}
