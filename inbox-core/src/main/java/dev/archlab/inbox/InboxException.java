package dev.archlab.inbox;

/**
 * Base of every exception this library throws. Expected outcomes of consuming a message (duplicate,
 * in flight, dead) are never exceptions; they are {@link Outcome}s. An {@code InboxException}
 * always means something went wrong or the input was refused.
 */
public class InboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what went wrong, for the caller and the log
   */
  public InboxException(String message) {
    super(message);
  }

  /**
   * Creates the exception with its cause.
   *
   * @param message what went wrong, for the caller and the log
   * @param cause the underlying failure
   */
  public InboxException(String message, Throwable cause) {

    super(message, cause);
  }
}
