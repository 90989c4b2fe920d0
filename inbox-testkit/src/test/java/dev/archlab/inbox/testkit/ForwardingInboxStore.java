package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Passes every call to another store unchanged; the deliberately broken stores of {@link
 * ModelMutationTest} override only the call they break.
 */
class ForwardingInboxStore implements InboxStore {

  final InboxStore delegate;

  ForwardingInboxStore(InboxStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    return delegate.begin(request);
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    return delegate.complete(claim, result);
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    return delegate.fail(claim, error, retryDelay);
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    return delegate.markDead(claim, error);
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    return delegate.extend(claim, lease);
  }

  @Override
  public long prune(Instant before) {
    return delegate.prune(before);
  }

  @Override
  public long prune(String consumer, Instant before) {
    return delegate.prune(consumer, before);
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    return delegate.find(consumer, messageId);
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    return delegate.list(state, consumer, limit);
  }

  @Override
  public Instant currentTime() {
    return delegate.currentTime();
  }
}
