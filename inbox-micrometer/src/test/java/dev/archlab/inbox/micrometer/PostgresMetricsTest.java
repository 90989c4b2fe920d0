package dev.archlab.inbox.micrometer;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link AbstractJdbcMetricsTest} on a real PostgreSQL server the test starts on 127.0.0.1. */
class PostgresMetricsTest extends AbstractJdbcMetricsTest {

  private static EmbeddedPostgres server;

  @BeforeAll
  static void start() throws IOException {
    server =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("fsync", "off")
            .start();
  }

  @AfterAll
  static void stop() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  DataSource dataSource() {
    return server.getPostgresDatabase();
  }
}
