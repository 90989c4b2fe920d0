package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.ForwardingInboxStore;
import dev.archlab.inbox.store.InboxStore;

/**
 * A broken store: {@code complete} accepts a stale fencing token (one below the record's current
 * attempt) while the record is PROCESSING, as a store whose conditional update forgot {@code
 * attempts = ?} would, and completes the current attempt in its place.
 */
final class StaleTokenStore extends ForwardingInboxStore {

  StaleTokenStore(InboxStore delegate) {
    super(delegate);
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    InboxRecord current = delegate().find(claim.consumer(), claim.messageId()).orElse(null);
    if (current != null
        && current.state() == RecordState.PROCESSING
        && claim.fencingToken() < current.attempts()) {
      return delegate().complete(current.toClaim(), result);
    }
    return delegate().complete(claim, result);
  }
}
