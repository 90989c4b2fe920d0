package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options every {@code inbox outbox} command takes: the database ({@link DbOptions}) and the
 * outbox table, and opening that outbox. The outbox lives in a JDBC database, so a Redis URL is
 * refused as a usage error.
 */
final class OutboxOptions {

  @Mixin DbOptions db;

  @Option(
      names = "--outbox-table",
      defaultValue = Outbox.DEFAULT_TABLE,
      description = "The outbox table (default: ${DEFAULT-VALUE}).")
  String table;

  /** The outbox these options name, with a small pool; closed by the caller. */
  Opened open(CommandSpec spec) {
    if (db.isRedis()) {
      throw new ParameterException(
          spec.commandLine(),
          "the outbox is a table in a JDBC database: --db must be a JDBC URL, not Redis");
    }
    HikariDataSource pool = db.open(2);
    try {
      return new Opened(pool, Outbox.builder(pool).table(table).build());
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /** An outbox on the database the options name, with the pool it reads through. */
  static final class Opened implements AutoCloseable {
    private final HikariDataSource pool;
    private final Outbox outbox;

    private Opened(HikariDataSource pool, Outbox outbox) {
      this.pool = pool;
      this.outbox = outbox;
    }

    Outbox outbox() {
      return outbox;
    }

    OutboxAdmin admin() {
      return outbox.admin();
    }

    @Override
    public void close() {
      pool.close();
    }
  }
}
