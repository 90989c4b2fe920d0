/**
 * The operator web page of Inbox: what an operator needs at 3 a.m. (per consumer counts, stuck
 * leases, dead letters; release, retry-dead and prune) as one framework-neutral request handler.
 *
 * <p>{@link dev.archlab.inbox.operator.InboxOperations} (in {@code inbox-core}) is what the page
 * needs from a store; {@code inbox-jdbc} and {@code inbox-redis} implement it, so this module
 * depends on no store. {@link dev.archlab.inbox.ui.OperatorUi} answers requests ({@link
 * dev.archlab.inbox.ui.UiRequest} to {@link dev.archlab.inbox.ui.UiResponse}), so any HTTP server
 * can carry it; {@link dev.archlab.inbox.ui.OperatorUiServer} serves it with the JDK's own HTTP
 * server. Safety (CSRF token, read-only mode, access token, action log) lives in the handler, so
 * every server that carries it gets the same rules.
 *
 * <p>Given a transactional outbox ({@link dev.archlab.inbox.ui.OutboxPanel}, {@link
 * dev.archlab.inbox.ui.OperatorUi#withOutbox}), the page also shows the outbox's backlog and puts
 * its DEAD rows back for the relay. {@code inbox-outbox} is an optional dependency: only {@code
 * OutboxPanel} names its types, and a page without an outbox runs without it.
 */
package dev.archlab.inbox.ui;
