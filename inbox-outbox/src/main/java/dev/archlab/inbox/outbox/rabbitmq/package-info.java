/**
 * The outbox relay's RabbitMQ publisher ({@link
 * dev.archlab.inbox.outbox.rabbitmq.RabbitOutboxPublisher}): persistent messages, mandatory routing
 * and publisher confirms. Needs {@code amqp-client} on the class path (an optional dependency of
 * this module).
 */
package dev.archlab.inbox.outbox.rabbitmq;
