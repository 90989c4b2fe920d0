package dev.archlab.inbox.outbox;

import java.sql.Connection;
import java.util.Map;

/**
 * Sends messages from one handler run through its transaction's connection: each {@link #send}
 * writes an outbox row that commits or rolls back with the handler's business writes and the
 * inbox's DONE. The n-th send (from 0) gets the id {@link OutgoingIds#derived}(consumer, incoming
 * message id, n), so a handler that runs again after a failure or a takeover, sending the same
 * messages in the same order, sends under the same ids: a row already in the outbox under an id is
 * not written again, and the receiving inbox deduplicates anything relayed twice.
 *
 * <p>Obtained from {@link Outbox#sendsOf}, one per handler run; not thread-safe (a handler runs on
 * one thread).
 */
public final class OutboxSender {

  private final Outbox outbox;
  private final Connection connection;
  private final String consumer;
  private final String messageId;
  private int position;

  OutboxSender(Outbox outbox, Connection connection, String consumer, String messageId) {
    this.outbox = outbox;
    this.connection = connection;
    this.consumer = consumer;
    this.messageId = messageId;
  }

  /**
   * Writes a message to the outbox in the handler's transaction.
   *
   * @param destination where the relay publishes it (a Kafka topic)
   * @param key the ordering key (messages of one destination and key are published in order), or
   *     null
   * @param payload the body; null is a null value (a Kafka tombstone)
   * @param headers extra headers, or null for none
   * @return the message's stable id
   * @throws dev.archlab.inbox.InvalidArgumentException if a part is invalid; nothing is written and
   *     the position is not used
   * @throws dev.archlab.inbox.InboxException if the row cannot be written (the handler's
   *     transaction should then fail, as any write failure would make it)
   */
  public String send(String destination, String key, byte[] payload, Map<String, String> headers) {
    String id = OutgoingIds.derived(consumer, messageId, position);
    OutboxMessage message = new OutboxMessage(id, destination, key, payload, headers);
    position++;
    outbox.send(connection, message);
    return id;
  }

  /**
   * {@link #send(String, String, byte[], Map)} without headers.
   *
   * @param destination where the relay publishes it
   * @param key the ordering key, or null
   * @param payload the body
   * @return the message's stable id
   */
  public String send(String destination, String key, byte[] payload) {
    return send(destination, key, payload, Map.of());
  }

  /**
   * How many messages this run has sent so far: the position the next send takes.
   *
   * @return the number of sends so far
   */
  public int sent() {
    return position;
  }
}
