package dev.archlab.inbox.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Debian's {@code redis-server} for one benchmark run: a master on a free 127.0.0.1 port, and
 * optionally one replica of it ({@code --replicaof}), each in a temporary directory with no
 * persistence ({@code --save ''}, no AOF), so both cost what the network and the scripts cost.
 * {@link #close()} kills both. Fails with a message naming the package if the server is not
 * installed.
 */
final class BenchRedisServer implements AutoCloseable {

  private static final Path SERVER =
      Path.of(System.getProperty("redis.server", "/usr/bin/redis-server"));

  /** Backstop for a server to answer or a replica to sync, on a slow, loaded machine. */
  private static final long STARTUP_LIMIT_SECONDS = 120;

  private final List<Process> started = new ArrayList<>();
  private final int port;
  private final int replicaPort;

  /** Starts a master and, if {@code withReplica}, a replica that has synced with it. */
  BenchRedisServer(boolean withReplica) throws IOException, InterruptedException {
    if (!Files.isExecutable(SERVER)) {
      throw new IllegalStateException(
          SERVER
              + " not found: install redis-server (apt-get install -y redis-server) or point"
              + " -Dredis.server at one");
    }
    try {
      port = start();
      awaitInfo(port, "PING", answer -> answer.equals("PONG"));
      if (withReplica) {
        replicaPort = start("--replicaof", "127.0.0.1", Integer.toString(port));
        awaitInfo(
            replicaPort, "INFO replication", answer -> answer.contains("master_link_status:up"));
      } else {
        replicaPort = -1;
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The master's URI. */
  RedisURI uri() {
    return RedisURI.create("127.0.0.1", port);
  }

  /** Whether a replica was started. */
  boolean hasReplica() {
    return replicaPort > 0;
  }

  /** {@code redis-server --version}'s words, for the report. */
  static String version() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(SERVER.toString(), "--version").redirectErrorStream(true).start();
    String text =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return text.strip();
  }

  private int start(String... extra) throws IOException {
    Path dir = Files.createTempDirectory("inbox-bench-redis-");
    int p = freePort();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                SERVER.toString(),
                "--port",
                Integer.toString(p),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                // The replica syncs at once instead of waiting 5 s for more replicas.
                "--repl-diskless-sync-delay",
                "0",
                "--logfile",
                dir.resolve("server.log").toString()));
    cmd.addAll(List.of(extra));
    Process process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    started.add(process);
    return p;
  }

  /** Polls {@code command} on {@code port} until {@code ready} accepts the answer. */
  private void awaitInfo(int onPort, String command, Predicate<String> ready)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_LIMIT_SECONDS);
    RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", onPort));
    try {
      String last = null;
      while (true) {
        for (Process p : started) {
          if (!p.isAlive()) {
            throw new IllegalStateException("redis-server exited with " + p.exitValue());
          }
        }
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          last = command.equals("PING") ? c.sync().ping() : c.sync().info("replication");
          if (ready.test(last)) {
            return;
          }
        } catch (io.lettuce.core.RedisException notYet) {
          last = notYet.getMessage();
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "redis-server on port " + onPort + " never answered " + command + ": " + last);
        }
        Thread.sleep(50);
      }
    } finally {
      client.shutdown();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    for (Process p : started) {
      p.destroyForcibly();
    }
    for (Process p : started) {
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
