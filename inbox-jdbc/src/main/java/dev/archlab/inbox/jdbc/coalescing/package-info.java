/**
 * Coalescing, the store's option to share round trips between concurrent callers: concurrent {@code
 * begin} and plain {@code complete} calls on one {@link dev.archlab.inbox.jdbc.JdbcInboxStore} are
 * gathered while a flush runs and sent as one batch statement, each caller getting the answer its
 * own call would have had. {@link dev.archlab.inbox.jdbc.coalescing.CoalescingStats} reports how
 * much sharing the load allowed. Turned on with the store builder's {@code coalescing(true)}.
 */
package dev.archlab.inbox.jdbc.coalescing;
