/**
 * Spring Boot auto-configuration for Inbox: the store (JDBC on the application's DataSource, or
 * Redis when {@code inbox.store=redis} or a Lettuce client bean says so), {@link
 * dev.archlab.inbox.spring.boot.IdempotentConsumers} (consumers by name from {@code
 * inbox.consumers.*}; on JDBC its subclass {@link dev.archlab.inbox.spring.boot.InboxConsumers},
 * including {@link dev.archlab.inbox.spring.boot.SpringTransactionalConsumer}, whose handler writes
 * in the Spring transaction that records DONE), the scheduled prune, the meters, the health
 * indicator, the Actuator endpoint {@code inbox} and the operator page, the last four reading only
 * the store's {@link dev.archlab.inbox.operator.InboxOperations}; and, with {@code
 * inbox.outbox.enabled=true}, the transactional outbox with its relay, gauges, health indicator,
 * Actuator endpoint {@code outbox} and the operator page's outbox panel.
 */
package dev.archlab.inbox.spring.boot;
