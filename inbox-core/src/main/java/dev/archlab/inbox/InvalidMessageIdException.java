package dev.archlab.inbox;

/**
 * A message id was refused: null, blank, longer than {@link Message#MAX_ID_LENGTH}, or holding
 * characters no database can store (control characters, unpaired surrogates). Nothing was written.
 */
public class InvalidMessageIdException extends InvalidArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was refused and why, naming the parameter or setting and the value given
   */
  public InvalidMessageIdException(String message) {

    super(message);
  }
}
