/**
 * The Inbox API: an {@link dev.archlab.inbox.IdempotentConsumer} wraps a {@link
 * dev.archlab.inbox.MessageHandler} so that each producer-made message id has its effect once per
 * dedup window, whatever the broker redelivers. Start with {@code IdempotentConsumer.builder(name,
 * store)}; outcomes are {@link dev.archlab.inbox.Outcome}s, failures are {@link
 * dev.archlab.inbox.InboxException}s.
 */
package dev.archlab.inbox;
