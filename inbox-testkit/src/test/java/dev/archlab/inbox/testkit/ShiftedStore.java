package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ForwardingInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A store seen the way the model test sees a database fixture: moving time shifts every stored
 * timestamp back instead of moving "now". The wrapped store's clock is moved forward by {@link
 * #shiftBy} as well, and this view subtracts all the time shifted from every time it hands out (and
 * adds it to a prune's cut-off), which is the same thing for every comparison the store makes.
 */
final class ShiftedStore extends ForwardingInboxStore {

  private Duration shift = Duration.ZERO;

  ShiftedStore(InboxStore delegate) {
    super(delegate);
  }

  /** Called after the wrapped store's clock moved forward by {@code d}. */
  void shiftBy(Duration d) {
    shift = shift.plus(d);
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    BeginResult r = delegate().begin(request);
    return BeginResult.of(r.kind(), shifted(r.record()), r.storeTime().minus(shift));
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    return shifted(delegate().complete(claim, result));
  }

  @Override
  public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
    return shifted(delegate().fail(claim, error, retryDelay));
  }

  @Override
  public InboxRecord markDead(Claim claim, String error) {
    return shifted(delegate().markDead(claim, error));
  }

  @Override
  public Claim extend(Claim claim, Duration lease) {
    Claim c = delegate().extend(claim, lease);
    return c.withLeaseUntil(c.leaseUntil().minus(shift));
  }

  @Override
  public long prune(Instant before) {
    return delegate().prune(before.plus(shift));
  }

  @Override
  public long prune(String consumer, Instant before) {
    return delegate().prune(consumer, before.plus(shift));
  }

  @Override
  public Optional<InboxRecord> find(String consumer, String messageId) {
    return delegate().find(consumer, messageId).map(this::shifted);
  }

  @Override
  public List<InboxRecord> list(RecordState state, String consumer, int limit) {
    return delegate().list(state, consumer, limit).stream().map(this::shifted).toList();
  }

  @Override
  public Instant currentTime() {
    return delegate().currentTime().minus(shift);
  }

  private InboxRecord shifted(InboxRecord r) {
    return new InboxRecord(
        r.consumer(),
        r.messageId(),
        r.state(),
        r.attempts(),
        r.leaseUntil() == null ? null : r.leaseUntil().minus(shift),
        r.createdAt().minus(shift),
        r.updatedAt().minus(shift),
        r.lastError(),
        r.payloadHash(),
        r.result());
  }
}
