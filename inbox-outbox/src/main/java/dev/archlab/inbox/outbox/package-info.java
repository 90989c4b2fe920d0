/**
 * A transactional outbox beside the JDBC inbox: what a handler sends is written in its transaction,
 * with ids derived from the incoming message, and published afterwards by a relay.
 *
 * <ul>
 *   <li>{@link dev.archlab.inbox.outbox.Outbox}: the table and the sends ({@code sendsOf(attempt,
 *       connection)}, {@code send(connection, message)}); the DDL ships per database under {@code
 *       dev/archlab/inbox/outbox/schema/<dialect>/V1__create_outbox.sql}.
 *   <li>{@link dev.archlab.inbox.outbox.OutgoingIds}: stable ids of handler sends, UUIDv7
 *       otherwise.
 *   <li>{@link dev.archlab.inbox.outbox.OutboxRelay}: claims due rows in per-key order, publishes
 *       them through an {@link dev.archlab.inbox.outbox.OutboxPublisher}, marks them SENT after the
 *       broker's acknowledgement, retries, parks and prunes.
 *   <li>{@link dev.archlab.inbox.outbox.OutboxAdmin}: the backlog and DEAD rows for operators.
 * </ul>
 */
package dev.archlab.inbox.outbox;
