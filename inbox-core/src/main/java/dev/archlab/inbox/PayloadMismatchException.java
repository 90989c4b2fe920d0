package dev.archlab.inbox;

/**
 * The same message id arrived with a payload whose fingerprint differs from the one recorded for
 * its first delivery. The message was not applied and the stored record is unchanged; usually the
 * producer reused an id for a different event.
 */
public class PayloadMismatchException extends InboxException {
  private static final long serialVersionUID = 1L;

  private final String consumer;
  private final String messageId;

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

  public String consumer() {
    return consumer;
  }

  public String messageId() {
    return messageId;
  }
}
