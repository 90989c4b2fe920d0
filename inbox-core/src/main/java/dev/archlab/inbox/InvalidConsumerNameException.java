package dev.archlab.inbox;

/**
 * A consumer name was refused: null, blank, longer than {@link
 * IdempotentConsumer#MAX_CONSUMER_NAME_LENGTH}, or holding control characters or unpaired
 * surrogates, or starting or ending with whitespace. Nothing was written.
 */
public class InvalidConsumerNameException extends InvalidArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was refused and why, naming the parameter or setting and the value given
   */
  public InvalidConsumerNameException(String message) {

    super(message);
  }
}
