package dev.archlab.inbox;

/**
 * The same message id arrived with a payload whose fingerprint differs from the one recorded for
 * its first delivery. The message was not applied and the stored record is unchanged; usually the
 * producer reused an id for a different event.
 */
public class PayloadMismatchException extends InboxException {
  private static final long serialVersionUID = 1L;

  /** The consumer the message was delivered to. */
  private final String consumer;

  /** The id that arrived with a different payload. */
  private final String messageId;

  /**
   * Creates the exception for a refused delivery.
   *
   * @param consumer the consumer the message was delivered to
   * @param messageId the id that arrived with a different payload
   */
  public PayloadMismatchException(String consumer, String messageId) {
    super(
        "message '"
            + messageId
            + "' for consumer '"
            + consumer
            + "' arrived with a payload that differs from the one first recorded for this id;"
            + " refusing to apply it");
    this.consumer = consumer;
    this.messageId = messageId;
  }

  /**
   * The consumer the message was delivered to.
   *
   * @return the consumer name
   */
  public String consumer() {
    return consumer;
  }

  /**
   * The id that arrived with a different payload.
   *
   * @return the message id
   */
  public String messageId() {

    return messageId;
  }
}
