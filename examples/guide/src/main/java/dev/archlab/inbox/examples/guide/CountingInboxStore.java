package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ForwardingInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.util.concurrent.atomic.LongAdder;

/**
 * The "writing a store" guide's example: a decorator that counts claims and completions and
 * forwards every call unchanged, so it keeps the contract of the store it wraps (its test runs the
 * contract suite and the model test on it).
 */
// tag::decorator[]
public final class CountingInboxStore extends ForwardingInboxStore {

  private final LongAdder begins = new LongAdder();
  private final LongAdder completions = new LongAdder();

  /**
   * Counts the calls made to {@code delegate}.
   *
   * @param delegate the store that does the work
   */
  public CountingInboxStore(InboxStore delegate) {
    super(delegate);
  }

  @Override
  public BeginResult begin(BeginRequest request) {
    begins.increment();
    return delegate().begin(request);
  }

  @Override
  public InboxRecord complete(Claim claim, byte[] result) {
    completions.increment();
    return delegate().complete(claim, result);
  }

  /**
   * Claims asked for so far.
   *
   * @return the number of {@code begin} calls
   */
  public long begins() {
    return begins.sum();
  }

  /**
   * Completions asked for so far.
   *
   * @return the number of {@code complete} calls
   */
  public long completions() {
    return completions.sum();
  }
}
// end::decorator[]
