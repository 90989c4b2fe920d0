package dev.archlab.inbox.kafka;

import dev.archlab.inbox.InboxException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record could not be written to its dead-letter topic. The record's offset did not move: it is
 * delivered again and its publication retried.
 */
public class DeadLetterException extends InboxException {
  private static final long serialVersionUID = 1L;

  DeadLetterException(String deadLetterTopic, ConsumerRecord<?, ?> record, Throwable cause) {
    super(
        "could not publish "
            + record.topic()
            + "-"
            + record.partition()
            + "@"
            + record.offset()
            + " to dead-letter topic '"
            + deadLetterTopic
            + "': "
            + cause,
        cause);
  }
}
