package dev.archlab.inbox.store;

import dev.archlab.inbox.Attempt;
import dev.archlab.inbox.Claim;
import dev.archlab.inbox.Message;

/** A message this instance has claimed, handed to a {@link ClaimedEffect}. Thread-safe. */
public interface ClaimedRun {

  /**
   * The claimed message.
   *
   * @return the message as delivered
   */
  Message message();

  /**
   * The attempt to hand to the business handler.
   *
   * @return the attempt under this run's claim
   */
  Attempt attempt();

  /**
   * Tells the consumer that the business handler returned normally. Stops lease renewals, so they
   * cannot race with the completion, and marks any later exception as a failure to record the
   * result rather than a handler failure (which would be retried).
   *
   * @return the claim to complete under, with the latest lease end
   */
  Claim handlerReturned();

  /**
   * The result the handler asked to keep with the record, or null.
   *
   * @return the bytes given to {@link Attempt#keepResult}, or null when none
   */
  byte[] keptResult();
}
