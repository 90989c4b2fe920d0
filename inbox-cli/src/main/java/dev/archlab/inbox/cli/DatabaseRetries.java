package dev.archlab.inbox.cli;

import dev.archlab.inbox.StoreUnavailableException;
import java.io.PrintWriter;
import java.sql.SQLException;

/** Waiting out a database that is briefly unreachable, for commands that already reached it. */
final class DatabaseRetries {
  private DatabaseRetries() {}

  /** Work against the database that may fail while it is unreachable. */
  @FunctionalInterface
  interface DatabaseWork {
    void run() throws Exception;
  }

  /**
   * Runs {@code work}, waiting out an unreachable database (lost connections, a restart) for up to
   * 60 tries 500 ms apart, with a line on stderr per retry; a refused login and anything else fail
   * at once. Only for work after the run has reached the database once.
   */
  static void untilAvailable(PrintWriter err, String what, DatabaseWork work) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        work.run();
        return;
      } catch (StoreUnavailableException | SQLException e) {
        boolean transientLoss =
            !DbOptions.loginRefused(e)
                && (e instanceof StoreUnavailableException
                    || (e instanceof SQLException sql
                        && sql.getSQLState() != null
                        && (sql.getSQLState().startsWith("08")
                            || sql.getSQLState().startsWith("57P"))));
        if (!transientLoss || attempt >= 60) {
          throw e;
        }
        err.println("inbox: " + what + ": " + InboxCli.oneLine(e) + "; retrying in 500 ms");
        Thread.sleep(500);
      }
    }
  }
}
