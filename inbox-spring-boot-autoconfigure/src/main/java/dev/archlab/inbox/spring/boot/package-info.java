/**
 * Spring Boot auto-configuration for Inbox: the store on the application's DataSource, {@link
 * dev.archlab.inbox.spring.boot.InboxConsumers} (consumers by name from {@code inbox.consumers.*},
 * including {@link dev.archlab.inbox.spring.boot.SpringTransactionalConsumer}, whose handler writes
 * in the Spring transaction that records DONE), the scheduled prune, the meters, the health
 * indicator and the Actuator endpoint {@code inbox}.
 */
package dev.archlab.inbox.spring.boot;
