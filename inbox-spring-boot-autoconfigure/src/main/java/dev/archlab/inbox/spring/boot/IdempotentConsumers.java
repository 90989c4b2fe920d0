package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.store.InboxStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Builds ready consumers by name on the auto-configured store, whichever it is (JDBC or Redis),
 * each configured from {@code inbox.consumers.<name>.*} (a name with no settings gets the library
 * defaults) and wired, when the application has a {@code MeterRegistry}, to the Inbox meters. On
 * every store: {@link #idempotent} — any effect (an HTTP call, a broker publish), recorded as DONE
 * after it. On the JDBC store the bean is an {@link InboxConsumers}, which adds the modes that
 * write the effect in the store's database transaction.
 *
 * <p>Every consumer built here is closed when the application context closes. Thread-safe.
 */
public class IdempotentConsumers implements AutoCloseable {

  private final InboxStore store;
  private final InboxProperties properties;
  private final Supplier<ConsumerObservation> observation;
  private final List<AutoCloseable> built = new ArrayList<>();
  private final Map<String, InboxConfig> configs = new LinkedHashMap<>();

  IdempotentConsumers(
      InboxStore store, InboxProperties properties, Supplier<ConsumerObservation> observation) {
    this.store = Objects.requireNonNull(store, "store");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.observation = Objects.requireNonNull(observation, "observation");
    for (String name : properties.getConsumers().keySet()) {
      // Validate every configured consumer at startup, not at its first use.
      configs.put(name, properties.configFor(name));
    }
  }

  /**
   * The store every consumer here uses.
   *
   * @return the auto-configured (or user-defined) store
   */
  public InboxStore store() {
    return store;
  }

  /**
   * The configuration consumer {@code name} gets: its {@code inbox.consumers.<name>.*} settings
   * over the defaults.
   *
   * @param name the consumer name
   * @return its validated configuration
   */
  public InboxConfig config(String name) {
    synchronized (configs) {
      return configs.computeIfAbsent(name, properties::configFor);
    }
  }

  /**
   * The configuration of every consumer configured in properties or built here so far, by name.
   *
   * @return a snapshot, in configuration order
   */
  public Map<String, InboxConfig> configs() {
    synchronized (configs) {
      return Map.copyOf(configs);
    }
  }

  /**
   * A consumer whose effect is anything outside the store; DONE is recorded after the handler
   * returns.
   *
   * @param name the consumer name
   * @param handler the effect
   * @return a new consumer, closed with the context
   */
  public IdempotentConsumer idempotent(String name, MessageHandler handler) {
    return register(builder(name).handler(handler).build());
  }

  /**
   * Reports a scheduled prune of consumer {@code name} to its observation, as a consumer's own
   * {@code pruneExpired()} does, so the prune meters count the scheduled runs too.
   */
  void reportPruned(String name, long count, Instant at) {
    ConsumerObservation o = observation();
    if (o != null) {
      o.listener(name)
          .onEvent(new InboxEvent(InboxEvent.Kind.PRUNED, name, null, 0, null, count, at));
    }
  }

  /** The meters' observation, or null when the application has none. */
  ConsumerObservation observation() {
    return observation.get();
  }

  /** A consumer builder on this store with {@code name}'s configuration and observation. */
  IdempotentConsumer.Builder builder(String name) {
    IdempotentConsumer.Builder b = IdempotentConsumer.builder(name, store).config(config(name));
    ConsumerObservation o = observation();
    if (o != null) {
      b.listener(o.listener(name));
    }
    return b;
  }

  /** Keeps {@code consumer} to close it with the context. */
  <T extends AutoCloseable> T register(T consumer) {
    synchronized (built) {
      built.add(consumer);
    }
    return consumer;
  }

  /** Closes every consumer built here; consumers already closed stay closed. */
  @Override
  public void close() {
    List<AutoCloseable> all;
    synchronized (built) {
      all = new ArrayList<>(built);
      built.clear();
    }
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception e) {
        // Closing only stops consuming; one failure must not keep the others open.
      }
    }
  }
}
