package dev.archlab.inbox;

/**
 * A consumer was used after {@code close()}: nothing was claimed or written, so the message is
 * neither lost nor stranded. Do not acknowledge it; the broker redelivers it to a consumer that is
 * open. Thrown by {@link IdempotentConsumer#consume} and by the JDBC store's one-commit and batch
 * consumers.
 */
public class ConsumerClosedException extends InboxException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception for a closed consumer.
   *
   * @param consumer the name of the closed consumer, quoted in the message
   */
  public ConsumerClosedException(String consumer) {

    super("consumer '" + consumer + "' is closed; nothing was claimed");
  }
}
