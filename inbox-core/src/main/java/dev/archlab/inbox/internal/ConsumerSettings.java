package dev.archlab.inbox.internal;

import dev.archlab.inbox.DeadLetterHandler;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.store.BeginRequest;
import java.time.InstantSource;

/**
 * The settings every consumer shares, whatever its mode: its name, its {@link InboxConfig}, where
 * its events and dead letters go, and the clock that time-stamps events. Immutable; made by a
 * {@link ConsumerBuilder}, which validates each value as it is set.
 */
public final class ConsumerSettings {

  private final String name;
  private final InboxConfig config;
  private final InboxListener listener;
  private final DeadLetterHandler deadLetterHandler;
  private final InstantSource clock;

  /**
   * The settings as a {@code ConsumerBuilder} validated them.
   *
   * @param name the consumer name
   * @param config the configuration
   * @param listener the event listener
   * @param deadLetterHandler the dead-letter handler
   * @param clock the clock events are time-stamped with
   */
  public ConsumerSettings(
      String name,
      InboxConfig config,
      InboxListener listener,
      DeadLetterHandler deadLetterHandler,
      InstantSource clock) {
    this.name = name;
    this.config = config;
    this.listener = listener;
    this.deadLetterHandler = deadLetterHandler;
    this.clock = clock;
  }

  /**
   * The logical consumer name, the first half of every record's key.
   *
   * @return the validated name
   */
  public String name() {
    return name;
  }

  /**
   * Lease, heartbeat, retry policy, fingerprints and dedup window.
   *
   * @return the configuration
   */
  public InboxConfig config() {
    return config;
  }

  /**
   * Receives the consumer's events.
   *
   * @return the listener; {@link InboxListener#NOOP} when none was set
   */
  public InboxListener listener() {
    return listener;
  }

  /**
   * Runs once per message parked as DEAD.
   *
   * @return the handler; {@link DeadLetterHandler#NONE} when none was set
   */
  public DeadLetterHandler deadLetterHandler() {
    return deadLetterHandler;
  }

  /**
   * Time-stamps events only; leases and retention follow the store's clock.
   *
   * @return the consumer's clock
   */
  public InstantSource clock() {
    return clock;
  }

  /**
   * The claim request for {@code message} under these settings: this consumer's name, the
   * configured lease and attempt limit, and the payload's fingerprint if fingerprints are on.
   *
   * @param message the delivery
   * @return the validated request
   */
  public BeginRequest beginRequest(Message message) {
    String hash = config.fingerprintPayloads() ? Fingerprint.sha256Hex(message.payload()) : null;
    return new BeginRequest(
        name, message.id(), config.lease(), config.retryPolicy().maxAttempts(), hash);
  }
}
