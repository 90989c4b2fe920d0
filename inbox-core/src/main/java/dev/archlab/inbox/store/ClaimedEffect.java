package dev.archlab.inbox.store;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;

/**
 * Runs the business effect of a claimed message and records it DONE as one step. The default runs a
 * {@link dev.archlab.inbox.MessageHandler} and then calls {@link InboxStore#complete}; a database
 * store supplies one that runs the handler and the fenced completion in a single transaction, so
 * the DONE write and the business write commit or roll back together.
 *
 * <p>Contract: call {@link ClaimedRun#handlerReturned()} after the handler returned and before the
 * completion. An exception thrown before that call is a handler failure and nothing may have been
 * committed; it is retried with backoff. A {@link LeaseLostException} means the fenced completion
 * was refused and nothing was committed.
 */
@FunctionalInterface
public interface ClaimedEffect {

  /**
   * @return the record after it became DONE
   */
  InboxRecord runAndComplete(ClaimedRun run) throws Exception;
}
