package dev.archlab.inbox.rabbitmq;

import dev.archlab.inbox.InboxException;

/**
 * RabbitMQ could not be reached or did not confirm a publish. When it is thrown for a delivery,
 * that delivery was not acknowledged: the broker delivers it again.
 */
public class BrokerException extends InboxException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed
   * @param cause the client's exception, or null
   */
  public BrokerException(String message, Throwable cause) {
    super(message, cause);
  }
}
