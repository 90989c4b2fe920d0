package dev.archlab.inbox.cli;

import java.io.IOException;
import java.io.UncheckedIOException;

/** One real PostgreSQL server for the CLI tests, started on first use, stopped at JVM exit. */
final class EmbeddedPostgres {
  private static io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

  static synchronized String url() {
    if (server == null) {
      try {
        server =
            io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "100")
                .start();
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        server.close();
                      } catch (IOException e) {
                        // exiting anyway
                      }
                    }));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return server.getJdbcUrl("postgres", "postgres");
  }

  /** The URL without credentials in it, so --user and --password decide. */
  static String bareUrl() {
    url();
    return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres";
  }

  private EmbeddedPostgres() {}
}
