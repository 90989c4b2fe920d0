package dev.archlab.inbox.spring.boot;

/**
 * Thrown from an inbox-consumed Kafka listener for a record that must go to its dead-letter topic
 * now, without retries: it is DEAD in the inbox, has no valid message id, or repeats an id with a
 * different payload. Spring Kafka's error handler publishes it and then lets the offset pass it.
 */
public final class DeadLetterRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  DeadLetterRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
