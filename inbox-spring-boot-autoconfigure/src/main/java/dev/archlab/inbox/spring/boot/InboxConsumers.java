package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.jdbc.BatchConsumer;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.OneCommitConsumer;
import dev.archlab.inbox.jdbc.TransactionalBatchHandler;
import dev.archlab.inbox.jdbc.TransactionalHandler;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Builds ready consumers by name, each configured from {@code inbox.consumers.<name>.*} (a name
 * with no settings gets the library defaults), wired to the auto-configured store and, when the
 * application has a {@code MeterRegistry}, to the Inbox meters. Pick the mode by method:
 *
 * <ul>
 *   <li>{@link #transactional} — the handler writes through Spring's transaction ({@code
 *       JdbcTemplate} …); its writes and DONE commit together. The usual choice in Spring.
 *   <li>{@link #oneCommit} — claim, business writes and DONE in one commit on a connection the
 *       handler is given.
 *   <li>{@link #batch} — many messages per transaction, on a connection the handler is given.
 *   <li>{@link #idempotent} — any effect (an HTTP call, a broker publish), recorded as DONE after
 *       it.
 * </ul>
 *
 * <p>Every consumer built here is closed when the application context closes. Thread-safe.
 */
public final class InboxConsumers implements AutoCloseable {

  private final JdbcInboxStore store;
  private final InboxProperties properties;
  private final Supplier<PlatformTransactionManager> transactionManager;
  private final Supplier<ConsumerObservation> observation;
  private final List<AutoCloseable> built = new ArrayList<>();
  private final Map<String, InboxConfig> configs = new LinkedHashMap<>();

  InboxConsumers(
      JdbcInboxStore store,
      InboxProperties properties,
      Supplier<PlatformTransactionManager> transactionManager,
      Supplier<ConsumerObservation> observation) {
    this.store = Objects.requireNonNull(store, "store");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.transactionManager = transactionManager;
    this.observation = observation;
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
  public JdbcInboxStore store() {
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

  // Whether transactional() can be used: the application has exactly one transaction manager.
  boolean hasTransactionManager() {
    return transactionManager.get() != null;
  }

  /**
   * A consumer whose handler runs in a Spring-managed transaction, committed together with DONE;
   * see {@link SpringTransactionalConsumer}.
   *
   * @param name the consumer name
   * @param handler the business effect, written through the Spring transaction (no connection)
   * @return a new consumer, closed with the context
   * @throws InvalidArgumentException if the application has no {@code PlatformTransactionManager}
   */
  public SpringTransactionalConsumer transactional(String name, MessageHandler handler) {
    Objects.requireNonNull(handler, "handler");
    PlatformTransactionManager tm = transactionManager.get();
    if (tm == null) {
      throw new InvalidArgumentException(
          "inbox consumer '"
              + name
              + "': transactional() needs a PlatformTransactionManager bean (Spring Boot defines"
              + " one for a single DataSource with spring-boot-jdbc on the classpath)");
    }
    DataSource dataSource = store.dataSource();
    IdempotentConsumer consumer =
        builder(name)
            .effect(
                store.inCallerTransaction(
                    () -> transactionConnection(name, dataSource),
                    (message, attempt, connection) -> handler.handle(message, attempt)))
            .build();
    return register(
        new SpringTransactionalConsumer(
            name,
            consumer,
            new TransactionTemplate(tm),
            observation.get(),
            store.dialect().oneWriterAtATime()));
  }

  /**
   * A consumer whose effect is anything outside the store's database; DONE is recorded after the
   * handler returns.
   *
   * @param name the consumer name
   * @param handler the effect
   * @return a new consumer, closed with the context
   */
  public IdempotentConsumer idempotent(String name, MessageHandler handler) {
    return register(builder(name).handler(handler).build());
  }

  /**
   * A consumer that claims, runs the handler on the claim's connection and records DONE in one
   * commit; see {@link OneCommitConsumer}. A heartbeat setting is refused (this mode never renews a
   * lease).
   *
   * @param name the consumer name
   * @param handler the business effect, written through the connection it is given
   * @return a new consumer, closed with the context
   */
  public OneCommitConsumer oneCommit(String name, TransactionalHandler handler) {
    OneCommitConsumer.Builder b =
        OneCommitConsumer.builder(name, store).config(config(name)).handler(handler);
    ConsumerObservation o = observation.get();
    if (o != null) {
      b.listener(o.listener(name));
    }
    return register(b.build());
  }

  /**
   * A consumer of batches: one transaction per batch; see {@link BatchConsumer}.
   *
   * @param name the consumer name
   * @param handler the business effect of a batch, written through the connection it is given
   * @return a new consumer, closed with the context
   */
  public BatchConsumer batch(String name, TransactionalBatchHandler handler) {
    BatchConsumer.Builder b =
        BatchConsumer.builder(name, store).config(config(name)).handler(handler);
    ConsumerObservation o = observation.get();
    if (o != null) {
      b.listener(o.listener(name));
    }
    return register(b.build());
  }

  /**
   * Reports a scheduled prune of consumer {@code name} to its observation, as a consumer's own
   * {@code pruneExpired()} does, so the prune meters count the scheduled runs too.
   */
  void reportPruned(String name, long count, Instant at) {
    ConsumerObservation o = observation.get();
    if (o != null) {
      o.listener(name)
          .onEvent(new InboxEvent(InboxEvent.Kind.PRUNED, name, null, 0, null, count, at));
    }
  }

  private IdempotentConsumer.Builder builder(String name) {
    IdempotentConsumer.Builder b = IdempotentConsumer.builder(name, store).config(config(name));
    ConsumerObservation o = observation.get();
    if (o != null) {
      b.listener(o.listener(name));
    }
    return b;
  }

  private <T extends AutoCloseable> T register(T consumer) {
    synchronized (built) {
      built.add(consumer);
    }
    return consumer;
  }

  // The connection of the Spring transaction consume() runs in. Refuse to run outside one: a
  // connection DataSourceUtils would open for us would commit on its own.
  private static Connection transactionConnection(String name, DataSource dataSource)
      throws SQLException {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalStateException(
          "inbox consumer '" + name + "' ran outside a Spring transaction");
    }
    Connection c = DataSourceUtils.getConnection(dataSource);
    // Inside a transaction this only lowers the holder's reference count; the connection stays
    // bound to the transaction until it ends.
    DataSourceUtils.releaseConnection(c, dataSource);
    return c;
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
