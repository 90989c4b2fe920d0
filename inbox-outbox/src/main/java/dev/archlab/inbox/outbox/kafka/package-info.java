/**
 * The outbox relay's Kafka publisher ({@link dev.archlab.inbox.outbox.kafka.KafkaOutboxPublisher}):
 * an idempotent producer with {@code acks=all}. Needs {@code kafka-clients} on the class path (an
 * optional dependency of this module).
 */
package dev.archlab.inbox.outbox.kafka;
