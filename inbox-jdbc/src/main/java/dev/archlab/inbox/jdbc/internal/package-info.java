/**
 * Not API: what inbox-jdbc's own packages share, the runner that owns connections, retries and
 * error translation ({@link dev.archlab.inbox.jdbc.internal.JdbcRunner}), the keyed and batch
 * operations on the inbox table ({@link dev.archlab.inbox.jdbc.internal.InboxTable}, {@link
 * dev.archlab.inbox.jdbc.internal.InboxBatches}), the guarded connection a handler gets, and the
 * accessor through which the consumers reach a store's parts ({@link
 * dev.archlab.inbox.jdbc.internal.StoreParts}). Public only so that the store's other packages can
 * use it; it may change in any release, is left out of the Javadoc, and a test fails when another
 * module imports it.
 */
package dev.archlab.inbox.jdbc.internal;
