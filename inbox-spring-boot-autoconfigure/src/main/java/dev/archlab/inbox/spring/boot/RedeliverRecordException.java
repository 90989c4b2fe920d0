package dev.archlab.inbox.spring.boot;

import java.time.Duration;

/**
 * Thrown from an inbox-consumed Kafka listener for a record that is not finished (FAILED and due
 * for a retry, or IN_FLIGHT on another instance): Spring Kafka's error handler seeks back to it and
 * redelivers it after {@link #retryAfter()}, as often as it takes; the inbox's retry policy decides
 * when it is DEAD instead.
 */
public final class RedeliverRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  RedeliverRecordException(String message, Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.retryAfter = retryAfter;
  }

  /**
   * How long to wait before delivering the record again.
   *
   * @return the inbox's retry hint, never negative
   */
  public Duration retryAfter() {
    return retryAfter;
  }
}
