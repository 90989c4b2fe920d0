package dev.archlab.inbox;

import java.util.Objects;

/**
 * The store could not be reached or did not answer (connection refused or lost, timeout, login
 * refused, database missing). The operation may or may not have taken effect; retrying the whole
 * delivery is safe because every store operation is idempotent or fenced. {@link #reason()} says
 * which, so callers decide without reading the message text.
 */
public class StoreUnavailableException extends InboxException {
  private static final long serialVersionUID = 1L;

  /** Why the store could not be used. */
  public enum Reason {
    /** No connection could be made or it was lost: the server is down, restarting or full. */
    UNREACHABLE,
    /** The server refused the login (wrong user or password, or no right to connect). */
    LOGIN_REFUSED,
    /** The server answered, but the database named in the connection settings does not exist. */
    DATABASE_MISSING,
    /** Anything else: the cause tells more. */
    OTHER
  }

  /** Why the store could not be used. */
  private final Reason reason;

  /**
   * Creates the exception for a failure of no more specific reason ({@link Reason#OTHER}).
   *
   * @param message what could not be done, naming the store operation
   * @param cause the driver's or pool's failure
   */
  public StoreUnavailableException(String message, Throwable cause) {
    this(Reason.OTHER, message, cause);
  }

  /**
   * Creates the exception.
   *
   * @param reason why the store could not be used
   * @param message what could not be done, naming the store operation
   * @param cause the driver's or pool's failure
   * @throws NullPointerException if {@code reason} is null
   */
  public StoreUnavailableException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * Why the store could not be used.
   *
   * @return the reason; {@link Reason#OTHER} when none more specific is known
   */
  public Reason reason() {
    return reason;
  }
}
