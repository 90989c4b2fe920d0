package dev.archlab.inbox;

/**
 * Base of every exception this library throws. Expected outcomes of consuming a message (duplicate,
 * in flight, dead) are never exceptions; they are {@link Outcome}s. An {@code InboxException}
 * always means something went wrong or the input was refused.
 */
public class InboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InboxException(String message) {
    super(message);
  }

  public InboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
