/**
 * What operators and monitoring read and do on a store, whatever holds its records: {@link
 * dev.archlab.inbox.operator.InboxOperations} (counts per consumer, records by state, release,
 * retry-dead, prune) and its per-consumer figures, {@link
 * dev.archlab.inbox.operator.ConsumerOverview}. Each store module implements it once ({@code
 * JdbcInboxOperations} in {@code inbox-jdbc}, {@code RedisInboxOperations} in {@code inbox-redis});
 * the {@code inbox} command, the operator page, the Micrometer gauges and the Spring Boot health,
 * endpoint and prune schedule use only this interface, so none of them depends on a store module.
 */
package dev.archlab.inbox.operator;
