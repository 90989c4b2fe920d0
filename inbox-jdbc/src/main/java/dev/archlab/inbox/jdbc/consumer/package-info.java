/**
 * The consumers that need a database, on a {@link dev.archlab.inbox.jdbc.JdbcInboxStore}: {@link
 * dev.archlab.inbox.jdbc.consumer.OneCommitConsumer} (claim, the handler's business write and DONE
 * in one commit, one message or a broker batch at a time) and {@link
 * dev.archlab.inbox.jdbc.consumer.BatchConsumer} (a broker batch in a constant number of round
 * trips, with the handler's writes of all claimed messages in one transaction).
 *
 * <p>What the package guarantees: a handler writes only through the guarded connection it is given
 * ({@code commit}, {@code rollback}, {@code setAutoCommit}, {@code close} and {@code abort} are
 * refused and fail the attempt), so its writes and DONE commit together or not at all; a failing
 * message of a batch is isolated ({@link dev.archlab.inbox.jdbc.consumer.BatchItemFailedException}
 * names it, anything else splits the batch in halves down to single messages), and the others
 * commit. {@code asMode()} hands either consumer to a broker adapter as a {@link
 * dev.archlab.inbox.broker.ConsumeMode}.
 */
package dev.archlab.inbox.jdbc.consumer;
