package dev.archlab.inbox.store;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link InboxStore} that forwards every call unchanged to another store; a decorator (fault
 * injection, logging, metrics, a view that routes some calls elsewhere) extends it and overrides
 * only the calls it decorates.
 *
 * <p>Guarantees: each {@link InboxStore} method, including any default method the interface has or
 * gains, is overridden here to call the same method of {@link #delegate()} with the same arguments
 * and to return its result or let its exception through, with nothing read, written, caught or
 * retried in between. Forwarding the default methods too matters: a decorated store may implement
 * them better than the interface's default, and a decorator must not silently fall back to the
 * default. {@code equals}, {@code hashCode} and {@code toString} are not forwarded: the decorator
 * is an object of its own. It is as thread-safe as the delegate and the subclass's overrides.
 */
public abstract class ForwardingInboxStore implements InboxStore {

  private final InboxStore delegate;

  /**
   * Creates a store that forwards to {@code delegate}.
   *
   * @param delegate the store every call not overridden goes to
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingInboxStore(InboxStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * The store calls are forwarded to, for overrides that decorate a call and then pass it on.
   *
   * @return the store given to the constructor
   */
  protected final InboxStore delegate() {
    return delegate;
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
