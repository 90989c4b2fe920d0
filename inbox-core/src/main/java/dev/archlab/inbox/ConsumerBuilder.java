package dev.archlab.inbox;

import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumerSettings;
import java.time.Clock;
import java.time.InstantSource;

/**
 * The options every consumer's builder accepts, the same way whatever the mode: a validated name,
 * {@link #config}, {@link #listener}, {@link #deadLetterHandler} and {@link #clock}. Each setter
 * refuses null with {@link InvalidArgumentException} naming the option; what the options mean
 * together is checked by the concrete builder's {@code build()}.
 *
 * @param <B> the concrete builder, returned by every setter so calls chain
 */
public abstract class ConsumerBuilder<B extends ConsumerBuilder<B>> {

  private final String name;
  private InboxConfig config = InboxConfig.ofDefaults();
  private InboxListener listener = InboxListener.NOOP;
  private DeadLetterHandler deadLetterHandler = DeadLetterHandler.NONE;
  private InstantSource clock = Clock.systemUTC();

  /**
   * Starts a builder for the consumer called {@code name}.
   *
   * @param name the logical consumer name
   * @throws InvalidConsumerNameException if the name is null, blank, too long, not storable or has
   *     surrounding whitespace
   */
  protected ConsumerBuilder(String name) {
    this.name = Identifiers.requireConsumerName(name);
  }

  /**
   * This builder as its concrete type.
   *
   * @return {@code this}
   */
  protected abstract B self();

  /**
   * Settings; {@link InboxConfig#ofDefaults()} when not set.
   *
   * @param config the settings
   * @return this builder
   * @throws InvalidArgumentException if {@code config} is null
   */
  public B config(InboxConfig config) {
    this.config = ArgumentChecks.requireValue(config, "config");
    return self();
  }

  /**
   * Receives events; none when not set.
   *
   * @param listener the listener, called synchronously
   * @return this builder
   * @throws InvalidArgumentException if {@code listener} is null
   */
  public B listener(InboxListener listener) {
    this.listener = ArgumentChecks.requireValue(listener, "listener");
    return self();
  }

  /**
   * Runs once per message parked as DEAD; nothing when not set.
   *
   * @param deadLetterHandler the handler
   * @return this builder
   * @throws InvalidArgumentException if {@code deadLetterHandler} is null
   */
  public B deadLetterHandler(DeadLetterHandler deadLetterHandler) {
    this.deadLetterHandler = ArgumentChecks.requireValue(deadLetterHandler, "deadLetterHandler");
    return self();
  }

  /**
   * The consumer's own clock, used only to time-stamp {@link InboxEvent}s. Leases, retry times and
   * retention are always measured by the store's clock, so a skewed host clock cannot steal a live
   * lease. Default: the system UTC clock.
   *
   * @param clock the clock for event time stamps
   * @return this builder
   * @throws InvalidArgumentException if {@code clock} is null
   */
  public B clock(Clock clock) {
    return clock((InstantSource) clock);
  }

  /**
   * As {@link #clock(Clock)}, for any {@link InstantSource} (only {@link InstantSource#instant()}
   * is read; no zone is needed).
   *
   * @param clock the source of event time stamps
   * @return this builder
   * @throws InvalidArgumentException if {@code clock} is null
   */
  public B clock(InstantSource clock) {
    this.clock = ArgumentChecks.requireValue(clock, "clock");
    return self();
  }

  /**
   * The name given at the start, for the concrete builder's messages.
   *
   * @return the validated consumer name
   */
  protected String name() {
    return name;
  }

  /**
   * The options set so far, for the concrete builder's checks and its consumer.
   *
   * @return an immutable snapshot of the shared options
   */
  @SuppressWarnings("exports") // internal: for the project's own builders only
  protected ConsumerSettings settings() {
    return new ConsumerSettings(name, config, listener, deadLetterHandler, clock);
  }
}
