/**
 * The JDBC store: {@link dev.archlab.inbox.jdbc.JdbcInboxStore}, one row per {@code (consumer,
 * message_id)} in PostgreSQL, MySQL/MariaDB, SQLite or H2, reached through any {@link
 * javax.sql.DataSource} (no pool of its own); its transactional mode ({@link
 * dev.archlab.inbox.jdbc.TransactionalHandler}); its operator actions ({@link
 * dev.archlab.inbox.jdbc.InboxAdmin}) and the store-neutral operator interface on its table ({@link
 * dev.archlab.inbox.jdbc.JdbcInboxOperations}).
 *
 * <p>The module's other packages, one job each: {@code consumer} (the one-commit and batch
 * consumers), {@code coalescing} (shared round trips between concurrent callers), {@code schema}
 * (the table's DDL and its creation), {@code dialect} (everything that differs between databases,
 * including every statement) and {@code internal} (what those packages share; not API).
 *
 * <p>What the package guarantees:
 *
 * <ul>
 *   <li>Leases, retry times and {@code updated_at} are set and compared in SQL with the database's
 *       clock; no class here reads the JVM's wall clock for them (a test scans the bytecode). A
 *       consumer's injected {@link java.time.Clock} only time-stamps events.
 *   <li>Every decision is one atomic statement (insert-if-absent, or an {@code UPDATE} fenced on
 *       state and {@code attempts}, whose row count says who won); a claim never aborts the
 *       caller's transaction.
 *   <li>In {@link dev.archlab.inbox.jdbc.JdbcInboxStore#transactional transactional} mode the
 *       handler's writes and DONE commit together, and a stale owner's writes roll back with its
 *       failed fence ({@link dev.archlab.inbox.LeaseLostException}).
 *   <li>SQL errors leave as {@link dev.archlab.inbox.InboxException} subclasses, classified by
 *       SQLState and vendor code; only serialization failures and deadlocks of the store's own
 *       statements are retried, a bounded number of times and with a logged warning.
 *   <li>The schema ships in the jar as versioned DDL per database ({@code
 *       dev/archlab/inbox/jdbc/schema/<dialect>/V1__create_inbox.sql}), and the only configured
 *       part of any statement, the table name, is a validated plain identifier.
 * </ul>
 */
package dev.archlab.inbox.jdbc;
