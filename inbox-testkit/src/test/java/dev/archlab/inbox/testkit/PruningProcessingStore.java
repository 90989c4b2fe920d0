package dev.archlab.inbox.testkit;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.ForwardingInboxStore;
import java.time.Instant;

/**
 * A broken store: its prune also deletes PROCESSING records updated before the cut-off, as a store
 * whose delete forgot {@code state = 'DONE'} would. Built on {@link MemoryInboxStore}: it completes
 * such a record with its own clock set back to the record's {@code updatedAt} (so the record keeps
 * that time), then lets the real prune delete it together with the DONE records.
 */
final class PruningProcessingStore extends ForwardingInboxStore {

  private final MutableClock clock;

  PruningProcessingStore(MemoryInboxStore delegate, MutableClock clock) {
    super(delegate);
    this.clock = clock;
  }

  @Override
  public long prune(Instant before) {
    doomProcessing(null, before);
    return delegate().prune(before);
  }

  @Override
  public long prune(String consumer, Instant before) {
    doomProcessing(consumer, before);
    return delegate().prune(consumer, before);
  }

  private void doomProcessing(String consumer, Instant before) {
    Instant now = clock.instant();
    try {
      for (InboxRecord r : delegate().list(RecordState.PROCESSING, consumer, Integer.MAX_VALUE)) {
        if (r.updatedAt().isBefore(before)) {
          clock.set(r.updatedAt());
          delegate().complete(r.toClaim(), r.result());
        }
      }
    } finally {
      clock.set(now);
    }
  }
}
