package dev.archlab.inbox.outbox;

import java.util.List;

/**
 * Publishes claimed outbox rows to a broker, for an {@link OutboxRelay}. Implementations: {@link
 * dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher}, {@link
 * dev.archlab.inbox.outbox.rabbitmq.RabbitOutboxPublisher}.
 *
 * <p>An implementation must publish the rows in the order given (the relay passes the rows of one
 * destination and key in sequence order), must return only when each row is acknowledged by the
 * broker or has failed, and must answer {@link PublishResult.Kind#SENT} only for a row the broker
 * acknowledged durably. It should publish each row's {@link OutboxRow#id()} with the message (a
 * header), so the receiving inbox deduplicates what a relay publishes twice. Used by one relay
 * thread at a time.
 */
public interface OutboxPublisher extends AutoCloseable {

  /**
   * Publishes {@code rows}, in order, and waits for the broker's answers.
   *
   * @param rows the claimed rows, rows of one destination and key in sequence order
   * @return one result per row, in the same order
   */
  List<PublishResult> publish(List<OutboxRow> rows);

  /** Releases the broker client. */
  @Override
  void close();
}
