package dev.archlab.inbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * One embedded PostgreSQL for a whole benchmark run, with every system's tables. Durability is the
 * production default for all systems alike: {@code fsync}, {@code synchronous_commit} and {@code
 * full_page_writes} are set on explicitly, because zonky's embedded default turns {@code
 * synchronous_commit} off, which would hide the cost of a commit — the very thing the systems
 * differ in.
 */
public final class BenchDatabase implements AutoCloseable {

  /** The business table every system inserts one row into per applied message. */
  static final String BUSINESS_TABLE = "business_row";

  /** The raw-SQL floors' dedup table: the same DDL as Inbox's own, under another name. */
  static final String FLOOR_TABLE = "floor_inbox";

  private final EmbeddedPostgres postgres;

  private BenchDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /** Starts PostgreSQL and creates every table. */
  public static BenchDatabase start() throws IOException, SQLException {
    return start(false);
  }

  /**
   * Starts PostgreSQL and creates every table; with {@code countStatements}, also loads {@code
   * pg_stat_statements} so that {@link CostMeter} counts statements (it costs every system a little
   * CPU per statement, so it is for diagnostic runs, not for the published ratios).
   */
  public static BenchDatabase start(boolean countStatements) throws IOException, SQLException {
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
    if (countStatements) {
      builder.setServerConfig("shared_preload_libraries", "pg_stat_statements");
    }
    EmbeddedPostgres pg =
        builder
            .setServerConfig("fsync", "on")
            .setServerConfig("synchronous_commit", "on")
            .setServerConfig("full_page_writes", "on")
            .setServerConfig("max_connections", "100")
            .setServerConfig("shared_buffers", "256MB")
            .start();
    BenchDatabase db = new BenchDatabase(pg);
    try {
      db.createTables();
      if (countStatements) {
        try (Connection c = db.admin().getConnection();
            Statement st = c.createStatement()) {
          st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        }
      }
    } catch (SQLException | RuntimeException e) {
      db.close();
      throw e;
    }
    return db;
  }

  /** An unpooled data source, for setup statements. */
  public DataSource admin() {
    return postgres.getPostgresDatabase();
  }

  /** The JDBC URL (with user) of the {@code postgres} database, for consumer processes. */
  public String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", "postgres");
  }

  /** A pool of exactly {@code size} connections: the connection count of a run. */
  public HikariDataSource pool(int size, String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl());
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setPoolName(name);
    // A worker never waits for a connection of another worker; if it does, something leaks.
    config.setConnectionTimeout(30_000);
    return new HikariDataSource(config);
  }

  private void createTables() throws SQLException {
    DataSource ds = admin();
    dev.archlab.inbox.jdbc.JdbcInboxStore.builder(ds).build().createSchemaIfMissing();
    dev.archlab.inbox.jdbc.JdbcInboxStore.builder(ds)
        .table(FLOOR_TABLE)
        .build()
        .createSchemaIfMissing();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + BUSINESS_TABLE
              + " (id BIGSERIAL PRIMARY KEY, message_id VARCHAR(255) NOT NULL,"
              + " amount BIGINT NOT NULL)");
      // Camel creates its table on start; created here so truncation works before any start.
      st.execute(
          "CREATE TABLE IF NOT EXISTS CAMEL_MESSAGEPROCESSED (processorName VARCHAR(255),"
              + " messageId VARCHAR(100), createdAt TIMESTAMP,"
              + " PRIMARY KEY (processorName, messageId))");
      for (String ddl : springMetadataDdl()) {
        st.execute(ddl);
      }
    }
  }

  /** The INT_METADATA_STORE statements of the DDL Spring Integration ships in its jar. */
  static java.util.List<String> springMetadataDdl() {
    String script;
    try (InputStream in =
        BenchDatabase.class.getResourceAsStream(
            "/org/springframework/integration/jdbc/schema-postgresql.sql")) {
      if (in == null) {
        throw new IllegalStateException(
            "schema-postgresql.sql not found in spring-integration-jdbc");
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    for (String statement : script.split(";")) {
      String s = statement.replaceAll("(?m)^\\s*--.*$", "").strip();
      if (s.contains("INT_METADATA_STORE")) {
        out.add(s.replaceFirst("(?i)^CREATE TABLE ", "CREATE TABLE IF NOT EXISTS "));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("no INT_METADATA_STORE DDL in schema-postgresql.sql");
    }
    return out;
  }

  /**
   * Empties every dedup and business table and checkpoints, so each run starts from the same table
   * sizes and no run pays for the previous one's dirty pages.
   */
  public void reset() throws SQLException {
    try (Connection c = admin().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "TRUNCATE inbox, "
              + FLOOR_TABLE
              + ", "
              + BUSINESS_TABLE
              + ", CAMEL_MESSAGEPROCESSED, INT_METADATA_STORE");
      st.execute("CHECKPOINT");
    }
  }

  /** Rows in {@code table}. */
  public long count(String table) throws SQLException {
    try (Connection c = admin().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The server's version and durability settings, for the report. */
  public String describe() throws SQLException {
    StringBuilder sb = new StringBuilder();
    try (Connection c = admin().getConnection();
        Statement st = c.createStatement()) {
      for (String q :
          new String[] {
            "server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers"
          }) {
        try (ResultSet rs = st.executeQuery("SHOW " + q)) {
          rs.next();
          sb.append(sb.length() == 0 ? "" : ", ").append(q).append('=').append(rs.getString(1));
        }
      }
    }
    return sb.toString();
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
