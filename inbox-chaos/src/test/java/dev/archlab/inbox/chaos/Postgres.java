package dev.archlab.inbox.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * Embedded PostgreSQL (zonky binaries, major set in the parent pom) on a fixed port with a data
 * directory of its own, so a restart is a real stop and start of the same cluster: committed rows
 * survive, every open connection breaks. Default durability settings (fsync on): a restart must not
 * lose what the consumers were told was committed.
 */
final class Postgres implements Database {

  private final int port;
  private final Path dataDir;
  private EmbeddedPostgres server;

  Postgres() {
    try {
      this.port = freePort();
      this.dataDir = Files.createTempDirectory("inbox-chaos-pg");
      this.server = start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded PostgreSQL", e);
    }
  }

  private EmbeddedPostgres start() throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dataDir)
        // Never clean: zonky would delete the cluster on close(), and the restart would then
        // initdb an empty one. The first start finds no cluster and makes it; we delete the
        // directory ourselves in close().
        .setCleanDataDirectory(false)
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("max_connections", "100")
        .start();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
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
  public synchronized <T> T restart(Callable<T> whileDown) throws Exception {
    // close() is pg_ctl stop -m fast: active transactions are rolled back, clients cut off.
    server.close();
    server = null;
    try {
      return whileDown.call();
    } finally {
      server = start();
    }
  }

  /** The application name of every consumer session, so a cut can count theirs alone. */
  static final String CONSUMER_APPLICATION = "inbox-chaos-consumer";

  @Override
  public String consumerUrl() {
    return url() + "?ApplicationName=" + CONSUMER_APPLICATION;
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      try {
        server.close();
      } catch (IOException e) {
        // The test is over; zonky's own shutdown hook stops what is left.
      }
      server = null;
    }
    try (var files = Files.walk(dataDir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temp directory is not worth failing a test for.
    }
  }
}
