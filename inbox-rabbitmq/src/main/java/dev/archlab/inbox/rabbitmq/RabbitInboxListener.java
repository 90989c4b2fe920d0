package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;
import dev.archlab.inbox.Outcome;
import java.time.Duration;

/**
 * What the consumer did, for metrics and tests. Called on the consumer's worker threads; must not
 * block and must not throw (an exception is logged and ignored). Every method has a no-op default.
 */
public interface RabbitInboxListener {

  /**
   * A delivery arrived on a worker, before it is consumed.
   *
   * @param delivery the delivery
   */
  default void received(Delivery delivery) {}

  /**
   * A delivery was consumed with this outcome (before it is settled on the broker).
   *
   * @param delivery the delivery
   * @param outcome the outcome
   */
  default void outcome(Delivery delivery, Outcome outcome) {}

  /**
   * A copy of the delivery was confirmed on the retry queue with this TTL, and the delivery acked.
   *
   * @param delivery the delivery
   * @param delay the copy's TTL
   */
  default void retryScheduled(Delivery delivery, Duration delay) {}

  /**
   * A copy of the delivery was confirmed on the dead-letter exchange, and the delivery acked.
   *
   * @param delivery the delivery
   * @param reason the reason written into {@code inbox-last-error}
   */
  default void deadLettered(Delivery delivery, String reason) {}

  /**
   * A delivery without a valid message id was acked and dropped ({@link MissingIdAction#DISCARD}).
   *
   * @param delivery the delivery
   * @param reason why it has no usable id
   */
  default void noMessageId(Delivery delivery, String reason) {}

  /**
   * A publish to the retry queue or the dead-letter exchange was not confirmed; the delivery is not
   * acked and the broker delivers it again.
   *
   * @param delivery the delivery
   * @param error what failed
   */
  default void publishFailed(Delivery delivery, Exception error) {}

  /**
   * The no-op listener.
   *
   * @return a listener that ignores everything
   */
  static RabbitInboxListener none() {
    return new RabbitInboxListener() {};
  }
}
