package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InvalidArgumentException;
import java.util.Collection;
import java.util.Set;

/**
 * Thrown by a {@link TransactionalBatchHandler} to name the messages of its batch that failed, so
 * that {@link BatchConsumer} need not search for them. The transaction is rolled back as for any
 * exception; then each named message records a failed attempt with {@link #getCause()} as its error
 * (retry with backoff, DEAD at its last attempt), and the messages not named run again at once,
 * together, in a new transaction. That costs one transaction more, instead of the bisection an
 * unnamed exception starts.
 *
 * <p>Name only ids of the list the handler was given in this call. An exception that names an id
 * outside it is treated as an unnamed failure of the whole call (the consumer bisects), so a wrong
 * name can cost transactions but never fails a message that did not fail.
 */
public final class BatchItemFailedException extends InboxException {
  private static final long serialVersionUID = 1L;

  private final Set<String> failedMessageIds;

  /**
   * @param failedMessageIds ids of the messages that failed, at least one
   * @param cause why they failed; recorded as each named message's error. Required.
   * @throws InvalidArgumentException if no id is given, an id is null, or the cause is null
   */
  public BatchItemFailedException(Collection<String> failedMessageIds, Throwable cause) {
    super(describe(failedMessageIds, cause), cause);
    this.failedMessageIds = Set.copyOf(failedMessageIds);
  }

  private static String describe(Collection<String> ids, Throwable cause) {
    if (ids == null || ids.isEmpty()) {
      throw new InvalidArgumentException(
          "a BatchItemFailedException names at least one failed message id, got " + ids);
    }
    for (String id : ids) {
      if (id == null) {
        throw new InvalidArgumentException("failed message ids must not be null, got " + ids);
      }
    }
    if (cause == null) {
      throw new InvalidArgumentException("the cause of failed batch items " + ids + " is required");
    }
    return "batch items failed " + ids + ": " + cause;
  }

  /** The ids the handler named, without repeats. */
  public Set<String> failedMessageIds() {
    return failedMessageIds;
  }
}
