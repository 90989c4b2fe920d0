package dev.archlab.inbox.examples.guide;

import static java.util.stream.Collectors.joining;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The upgrading guide's example: the DDL file shipped in the inbox-jdbc jar, found by its classpath
 * path and run as a plain SQL script, the way a migration tool runs a versioned file (comments
 * dropped, statements in order); the store then accepts the table as its own.
 */
public final class SchemaMigrationExample {

  private SchemaMigrationExample() {}

  /**
   * Runs the shipped DDL for the database's dialect, statement by statement.
   *
   * @param dataSource the database
   * @return whether the store finds its table and index afterwards
   * @throws IOException if the DDL file cannot be read from the classpath
   * @throws SQLException if a statement fails
   */
  public static boolean migrate(DataSource dataSource) throws IOException, SQLException {
    // tag::migrate[]
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).build(); // table "inbox"
    String resource = store.dialect().schemaResource(); // .../schema/<dialect>/V1__create_inbox.sql
    String ddl;
    try (InputStream in = JdbcInboxStore.class.getClassLoader().getResourceAsStream(resource)) {
      ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    // What a migration tool does with the V1 file: comments dropped, statements run in order.
    String statements =
        ddl.lines().filter(line -> !line.strip().startsWith("--")).collect(joining("\n"));
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      for (String statement : statements.split(";")) {
        if (!statement.isBlank()) {
          st.execute(statement);
        }
      }
    }
    boolean accepted = store.schemaExists(); // the table and its index, as the store expects
    // end::migrate[]
    return accepted;
  }
}
