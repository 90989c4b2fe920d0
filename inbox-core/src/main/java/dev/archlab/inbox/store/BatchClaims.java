package dev.archlab.inbox.store;

import dev.archlab.inbox.Claim;
import java.util.List;

/**
 * An optional capability of an {@link InboxStore}: claiming the new ids of a batch in one step, and
 * giving back such a claim whose handler never ran. {@link dev.archlab.inbox.IdempotentConsumer
 * #consumeInOrder} uses it to claim a broker batch's new messages with one round trip and one
 * commit, then to run them one by one in order; when one of them does not finish, the claims after
 * it are given back, so nothing after it runs and no attempt is counted for them.
 *
 * <p>Only first claims (attempt 1, records this call inserted) are made and given back: an id whose
 * record exists is claimed by {@link InboxStore#begin} at its turn. Thread-safe.
 */
public interface BatchClaims {

  /**
   * Claims, in one step, every request (one consumer) whose id has no record yet: a new PROCESSING
   * record, attempt 1, under the request's lease. Ids that have a record are left alone.
   *
   * @param requests distinct ids of one consumer
   * @return a CLAIMED result for each id claimed, in request order; none for an id that existed
   * @throws dev.archlab.inbox.StoreUnavailableException if the store cannot be reached
   * @throws dev.archlab.inbox.InvalidArgumentException if the requests name more than one consumer
   */
  List<BeginResult> claimNew(List<BeginRequest> requests);

  /**
   * Gives back first claims made by {@link #claimNew} whose handler never ran, as if they had never
   * been made: each record is deleted if it is still PROCESSING at attempt 1, so the next delivery
   * claims the id afresh. A claim no longer current (its lease ran out and another instance took
   * the message over) is left alone.
   *
   * @param claims claims from {@link #claimNew} whose handler did not run
   * @throws dev.archlab.inbox.StoreUnavailableException if the store cannot be reached; the claims
   *     then end with their lease, as a crashed consumer's do
   */
  void unclaimFirst(List<Claim> claims);
}
