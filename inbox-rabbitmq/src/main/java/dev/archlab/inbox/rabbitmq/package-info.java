/**
 * A RabbitMQ consumer over Inbox on the official {@code amqp-client} ({@link
 * dev.archlab.inbox.rabbitmq.RabbitInboxConsumer}): manual acks, IN_FLIGHT and FAILED redelivered
 * after {@code retryAfter()} through a TTL retry queue, dead letters confirmed before the ack, and
 * a topology helper ({@link dev.archlab.inbox.rabbitmq.RabbitTopology}).
 */
package dev.archlab.inbox.rabbitmq;
