package dev.archlab.inbox.rabbitmq;

/** What happens to a delivery without a valid message id: it can never be deduplicated. */
public enum MissingIdAction {
  /**
   * Published to the dead-letter exchange with the reason in {@code inbox-last-error}, acked after
   * the broker confirmed that publish (the default).
   */
  DEAD_LETTER,
  /**
   * Acked and dropped; the listener still hears of it ({@link RabbitInboxListener#noMessageId}).
   */
  DISCARD
}
