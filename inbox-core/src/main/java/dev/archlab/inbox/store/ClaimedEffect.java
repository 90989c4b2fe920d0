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
   * Runs the effect of the claimed message and records it DONE, following the contract above.
   *
   * @param run the claimed message, its attempt, and the hook to call when the handler returned
   * @return the record after it became DONE
   * @throws Exception what the handler threw (before {@link ClaimedRun#handlerReturned()}: a
   *     handler failure, retried), a {@link LeaseLostException} if the fenced completion was
   *     refused, or a failure to record DONE (after the hook)
   */
  InboxRecord runAndComplete(ClaimedRun run) throws Exception;

  /**
   * The store through which the consumer writes one delivery's own records: the claim, a failed
   * attempt or its move to DEAD, and the lease extensions the handler asks for. Called once per
   * delivery, on the thread that consumes it, before the claim. The default is the consumer's
   * store.
   *
   * <p>A database effect that runs in a transaction the caller holds may return a view of the store
   * bound to that transaction, when the database cannot write anything else beside it (SQLite: one
   * write lock per file). A store other than {@code consumerStore} is bound to the consuming
   * thread: the consumer uses it on that thread only, so it runs no heartbeat renewals for the
   * delivery (its claim is invisible to every other connection until the caller commits, and no one
   * else can write meanwhile, so there is no lease anyone could take over).
   *
   * @param consumerStore the consumer's store
   * @return the store for this delivery's writes; {@code consumerStore} unless bound as above
   */
  default InboxStore deliveryStore(InboxStore consumerStore) {
    return consumerStore;
  }
}
