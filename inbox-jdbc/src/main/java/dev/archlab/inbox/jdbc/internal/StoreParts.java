package dev.archlab.inbox.jdbc.internal;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.util.Objects;
import java.util.function.Function;

/**
 * The parts of a {@link JdbcInboxStore} that the module's consumers work with on their own
 * connections: the runner (errors, dialect, statements), the keyed row operations and the batch
 * operations. Not API: this package is for inbox-jdbc's own packages only (a test fails when
 * another module imports it).
 *
 * <p>The store hands its parts out through an accessor it registers when its class is loaded, so
 * that they need no public getter on the store itself (the pattern the JDK uses between its own
 * packages).
 */
public record StoreParts(JdbcRunner jdbc, InboxTable rows, InboxBatches batches) {

  private static volatile Function<JdbcInboxStore, StoreParts> access;

  public StoreParts {
    Objects.requireNonNull(jdbc, "jdbc");
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(batches, "batches");
  }

  /**
   * Registers the store's accessor; called once, from {@link JdbcInboxStore}'s static initializer.
   *
   * @param accessor reads a store's parts
   * @throws IllegalStateException when an accessor is registered already
   */
  public static synchronized void registerAccess(Function<JdbcInboxStore, StoreParts> accessor) {
    if (access != null) {
      throw new IllegalStateException("the store's accessor is registered already");
    }
    access = Objects.requireNonNull(accessor, "accessor");
  }

  /**
   * The parts of {@code store}.
   *
   * @param store a store (its class is loaded, so its accessor is registered)
   * @return its runner, row and batch operations
   */
  public static StoreParts of(JdbcInboxStore store) {
    Objects.requireNonNull(store, "store");
    return access.apply(store);
  }
}
