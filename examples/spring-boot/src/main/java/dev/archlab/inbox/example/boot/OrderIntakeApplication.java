package dev.archlab.inbox.example.boot;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Example service: takes order messages over HTTP (standing in for a broker that delivers at least
 * once) and writes each order exactly once, with the inbox's meters, health and operator endpoint
 * under {@code /actuator}. Its database is an embedded PostgreSQL server it starts itself.
 */
@SpringBootApplication
public class OrderIntakeApplication {

  /**
   * Starts the service.
   *
   * @param args Spring Boot arguments
   */
  public static void main(String[] args) {
    SpringApplication.run(OrderIntakeApplication.class, args);
  }

  /** A real PostgreSQL server on 127.0.0.1, stopped with the application. */
  @Bean(destroyMethod = "close")
  EmbeddedPostgres embeddedPostgres() throws IOException {
    return EmbeddedPostgres.builder()
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("fsync", "off")
        .start();
  }

  /** The application's DataSource: the inbox, the orders and the transactions all use it. */
  @Bean
  DataSource dataSource(EmbeddedPostgres postgres) {
    return postgres.getPostgresDatabase();
  }
}
