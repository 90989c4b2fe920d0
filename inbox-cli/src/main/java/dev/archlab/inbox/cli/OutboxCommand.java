package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code inbox outbox}: the operator commands on a transactional outbox table ({@code status},
 * {@code list}, {@code retry-dead}). The outbox lives in a JDBC database, so a Redis URL is refused
 * as a usage error.
 */
@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    description = {
      "The outbox of messages handlers sent: its backlog, its rows, and DEAD rows put back for"
          + " the relay. Times are the database's."
    },
    subcommands = {
      OutboxStatusCommand.class,
      OutboxListCommand.class,
      OutboxRetryDeadCommand.class
    },
    footer = {
      "",
      "Examples:",
      "  inbox outbox status --db jdbc:postgresql://db:5432/app --user app",
      "  inbox outbox list --state DEAD",
      "  inbox outbox retry-dead 6f1c…"
    })
final class OutboxCommand implements Runnable {

  @picocli.CommandLine.Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing command: inbox outbox status, list or retry-dead");
  }

  /** An outbox on the database the options name, with the pool it reads through. */
  static final class Opened implements AutoCloseable {
    private final HikariDataSource pool;
    private final Outbox outbox;

    private Opened(HikariDataSource pool, Outbox outbox) {
      this.pool = pool;
      this.outbox = outbox;
    }

    static Opened open(DbOptions db, String table, CommandSpec spec) {
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
