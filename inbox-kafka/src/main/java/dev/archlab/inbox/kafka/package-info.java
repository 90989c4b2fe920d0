/**
 * A Kafka consumer loop over Inbox ({@link dev.archlab.inbox.kafka.KafkaInboxLoop}): outcomes drive
 * offsets, commits never pass unfinished records, dead letters are confirmed before the offset
 * moves.
 */
package dev.archlab.inbox.kafka;
