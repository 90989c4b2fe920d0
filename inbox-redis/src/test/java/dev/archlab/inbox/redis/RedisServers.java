package dev.archlab.inbox.redis;

import dev.archlab.inbox.testkit.FreePorts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real Redis servers for the tests (Debian's {@code redis-server}), started by the tests on
 * 127.0.0.1 on free ports in temporary directories, once per test JVM: one standalone server, and a
 * cluster of three masters with one replica each made with {@code redis-cli --cluster create}.
 * Every server is killed when the JVM exits, whatever the tests did. If {@code redis-server} is not
 * installed the tests fail with a message saying what to install; they are never skipped. Public,
 * and shipped in this module's test-jar, so the CLI's tests run against the same servers.
 */
public final class RedisServers {

  /** The Debian package's server; {@code -Dredis.server=...} overrides it. */
  static final String DEFAULT_SERVER = "/usr/bin/redis-server";

  /** Backstop for a server or the cluster to come up on a slow, loaded machine. */
  static final long STARTUP_LIMIT_SECONDS = 120;

  private static final List<Process> STARTED = new ArrayList<>();
  private static RedisNode standalone;
  private static List<RedisNode> clusterNodes;
  private static RedisClient standaloneClient;
  private static RedisClusterClient clusterClient;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(RedisServers::killAll, "stop-redis"));
  }

  private RedisServers() {}

  /** One running server. */
  public record RedisNode(int port, Path dir, Process process) {
    /**
     * The node's host and port.
     *
     * @return {@code 127.0.0.1:port}
     */
    public String address() {
      return "127.0.0.1:" + port;
    }
  }

  /** The standalone server, started on first use. */
  public static synchronized RedisNode standalone() {
    if (standalone == null) {
      standalone = start("standalone");
    }
    return standalone;
  }

  /** A client of the standalone server, shared by the tests of this JVM. */
  static synchronized RedisClient standaloneClient() {
    if (standaloneClient == null) {
      standaloneClient = RedisClient.create(RedisURI.create("127.0.0.1", standalone().port()));
    }
    return standaloneClient;
  }

  /** The shared cluster's six nodes (three masters, three replicas), made on first use. */
  public static synchronized List<RedisNode> cluster() {
    if (clusterNodes == null) {
      clusterNodes = startCluster("cluster");
    }
    return clusterNodes;
  }

  /**
   * A new cluster of three masters with one replica each, for a test that breaks it (kills a node);
   * {@link #stop} its nodes when done. Failover after {@code cluster-node-timeout} 2 s.
   */
  static List<RedisNode> startCluster(String name) {
    List<RedisNode> nodes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      nodes.add(
          start(
              name + i,
              "--cluster-enabled",
              "yes",
              "--cluster-node-timeout",
              "2000",
              // A replica syncs at once (the default waits 5 s for more replicas) ...
              "--repl-diskless-sync-delay",
              "0",
              // ... and may take over however long it was cut off from its master.
              "--cluster-replica-validity-factor",
              "0"));
    }
    List<String> create = new ArrayList<>(List.of(cli().toString(), "--cluster", "create"));
    for (RedisNode n : nodes) {
      create.add(n.address());
    }
    create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    run(nodes.get(0).dir().resolve("create.out"), create);
    for (RedisNode n : nodes) {
      awaitClusterOk(n);
    }
    // Every replica has its master's data, so a killed master can be replaced.
    for (RedisNode n : nodes) {
      if (!isMaster(n)) {
        awaitAnswerContaining(n, "INFO replication", "master_link_status:up");
      }
    }
    return List.copyOf(nodes);
  }

  /** A cluster client for {@code nodes} that follows failovers, with a short command timeout. */
  static RedisClusterClient clusterClient(List<RedisNode> nodes, Duration commandTimeout) {
    List<RedisURI> seeds = new ArrayList<>();
    for (RedisNode n : nodes) {
      seeds.add(
          RedisURI.builder()
              .withHost("127.0.0.1")
              .withPort(n.port())
              .withTimeout(commandTimeout)
              .build());
    }
    RedisClusterClient client = RedisClusterClient.create(seeds);
    client.setOptions(RedisStoreBuilder.failoverAwareOptions());
    return client;
  }

  /** Kills every node of a cluster made by {@link #startCluster}. */
  static void stop(List<RedisNode> nodes) {
    for (RedisNode n : nodes) {
      n.process().destroyForcibly();
    }
  }

  /** Whether the node is a master now (INFO replication says role:master). */
  static boolean isMaster(RedisNode node) {
    try {
      String info = command(node.port(), "INFO replication");
      return info != null && info.contains("role:master");
    } catch (IOException e) {
      return false;
    }
  }

  /** A cluster client seeded with every node, shared by the tests of this JVM. */
  static synchronized RedisClusterClient clusterClient() {
    if (clusterClient == null) {
      clusterClient = clusterClient(cluster(), Duration.ofSeconds(60));
    }
    return clusterClient;
  }

  static Path server() {
    Path server = Paths.get(System.getProperty("redis.server", DEFAULT_SERVER));
    if (!Files.isExecutable(server)) {
      throw new IllegalStateException(
          "Redis server not found at "
              + server
              + ": install it (Debian/Ubuntu: apt-get install -y redis-server; .ci/run does this)"
              + " or point -Dredis.server at redis-server. The Redis tests need a real server and"
              + " are not skipped.");
    }
    return server;
  }

  static Path cli() {
    Path cli = server().resolveSibling("redis-cli");
    if (!Files.isExecutable(cli)) {
      throw new IllegalStateException(
          "redis-cli not found next to " + server() + ": it comes with the redis-tools package");
    }
    return cli;
  }

  /** Starts a server with {@code extra} options and waits until it answers PING. */
  static RedisNode start(String name, String... extra) {
    try {
      Path dir = Files.createTempDirectory("inbox-redis-" + name + "-");
      boolean cluster = List.of(extra).contains("--cluster-enabled");
      int[] ports = FreePorts.distinct(cluster ? 2 : 1);
      int port = ports[0];
      List<String> cmd = new ArrayList<>();
      cmd.add(server().toString());
      cmd.addAll(
          List.of(
              "--port", Integer.toString(port),
              "--bind", "127.0.0.1",
              "--dir", dir.toString(),
              "--save", "",
              "--appendonly", "no",
              "--daemonize", "no",
              "--logfile", dir.resolve("server.log").toString()));
      if (cluster) {
        cmd.addAll(List.of("--cluster-port", Integer.toString(ports[1])));
        cmd.addAll(List.of("--cluster-config-file", dir.resolve("nodes.conf").toString()));
      }
      cmd.addAll(List.of(extra));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()));
      Process process = pb.start();
      synchronized (STARTED) {
        STARTED.add(process);
      }
      RedisNode node = new RedisNode(port, dir, process);
      awaitAnswer(node, "PING", "+PONG");
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start redis-server", e);
    }
  }

  /** Sends one inline command over a fresh socket and returns the first reply line (or bulk). */
  static String command(int port, String command) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      String first = readLine(in);
      if (first.startsWith("$")) {
        int length = Integer.parseInt(first.substring(1));
        return length < 0 ? null : new String(in.readNBytes(length), StandardCharsets.UTF_8);
      }
      return first;
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  private static void awaitAnswer(RedisNode node, String command, String expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_LIMIT_SECONDS);
    while (true) {
      if (!node.process().isAlive()) {
        throw new IllegalStateException(
            "redis-server exited with " + node.process().exitValue() + "; see " + node.dir());
      }
      try {
        if (expected.equals(command(node.port(), command))) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "redis-server on port "
                + node.port()
                + " did not answer "
                + command
                + "; see "
                + node.dir());
      }
      pause();
    }
  }

  private static void awaitAnswerContaining(RedisNode node, String command, String expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_LIMIT_SECONDS);
    String answer = null;
    while (true) {
      try {
        answer = command(node.port(), command);
        if (answer != null && answer.contains(expected)) {
          return;
        }
      } catch (IOException notYet) {
        // keep polling
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            node.address() + " never answered " + command + " with " + expected + ": " + answer);
      }
      pause();
    }
  }

  /** Polls CLUSTER INFO until the node reports cluster_state:ok, with a generous backstop. */
  static void awaitClusterOk(RedisNode node) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_LIMIT_SECONDS);
    String info = null;
    while (true) {
      try {
        info = command(node.port(), "CLUSTER INFO");
        if (info != null && info.contains("cluster_state:ok")) {
          return;
        }
      } catch (IOException notYet) {
        // keep polling
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "cluster node " + node.address() + " never reached cluster_state:ok: " + info);
      }
      pause();
    }
  }

  private static void run(Path log, List<String> command) {
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      if (!p.waitFor(STARTUP_LIMIT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish; see " + log);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " failed: " + Files.readString(log));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for redis-server", e);
    }
  }

  static int freePort() throws IOException {
    return FreePorts.one();
  }

  private static void killAll() {
    synchronized (STARTED) {
      for (Process p : STARTED) {
        p.destroyForcibly();
      }
    }
  }
}
