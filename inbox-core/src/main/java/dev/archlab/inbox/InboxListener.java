package dev.archlab.inbox;

/**
 * Receives {@link InboxEvent}s synchronously on the consuming thread (or the heartbeat thread for
 * lease renewals). Implementations must be fast and thread-safe; an exception thrown here is logged
 * and otherwise ignored, so a broken listener never changes an outcome.
 */
@FunctionalInterface
public interface InboxListener {

  /** A listener that ignores everything. */
  InboxListener NOOP = event -> {};

  /**
   * Receives one event.
   *
   * @param event what happened
   */
  void onEvent(InboxEvent event);
}
