package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.archlab.inbox.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real RabbitMQ server (Debian's {@code rabbitmq-server}) for the tests: one per test JVM, on
 * 127.0.0.1 on free ports, in a private directory, with its own epmd port. When the JVM runs as
 * root the server runs as {@code nobody} (the directory is handed to that user), so it is never a
 * root process. Stopped, with its epmd, when the JVM exits. If the server is not installed the
 * tests fail with a message saying what to install.
 *
 * <p>Public for other modules' tests (this module's test jar), so the way a real server is started
 * lives in one place.
 */
public final class RabbitBroker {

  /** The Debian package's server script; {@code -Drabbitmq.server=...} overrides it. */
  static final String DEFAULT_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server";

  private static RabbitBroker instance;

  private final Path server;
  private final Path ctl;
  private final Path dir;
  private final String node;
  private final int port;
  private final int distPort;
  private final int epmdPort;
  private final List<String> asUser;
  private Process process;

  private RabbitBroker() throws IOException {
    server = Paths.get(System.getProperty("rabbitmq.server", DEFAULT_SERVER));
    if (!Files.isExecutable(server)) {
      throw new IllegalStateException(
          "RabbitMQ server not found at "
              + server
              + ": install it (Debian/Ubuntu: apt-get install -y rabbitmq-server; .ci/run does"
              + " this) or point -Drabbitmq.server at rabbitmq-server. The RabbitMQ tests need a"
              + " real broker and are not skipped.");
    }
    ctl = server.resolveSibling("rabbitmqctl");
    dir = Files.createTempDirectory("inbox-rabbitmq-");
    Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
    node = "inbox" + UUID.randomUUID().toString().substring(0, 8) + "@localhost";
    int[] ports = dev.archlab.inbox.testkit.FreePorts.distinct(3);
    port = ports[0];
    distPort = ports[1];
    epmdPort = ports[2];
    asUser = nonRootPrefix(dir);
  }

  /**
   * The server of this test JVM, started on first use.
   *
   * @return the running server
   */
  public static synchronized RabbitBroker get() {
    if (instance == null) {
      try {
        RabbitBroker b = new RabbitBroker();
        b.start();
        instance = b;
        Runtime.getRuntime().addShutdownHook(new Thread(b::shutdown, "stop-rabbitmq"));
      } catch (IOException e) {
        throw new UncheckedIOException("could not start RabbitMQ", e);
      }
    }
    return instance;
  }

  /**
   * The AMQP port on 127.0.0.1.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * A factory for this broker (guest/guest from 127.0.0.1), without automatic recovery.
   *
   * @return a new factory
   */
  public ConnectionFactory factory() {
    ConnectionFactory f = new ConnectionFactory();
    f.setHost("127.0.0.1");
    f.setPort(port);
    f.setAutomaticRecoveryEnabled(false);
    return f;
  }

  Connection connect() {
    try {
      return factory().newConnection("test");
    } catch (IOException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("could not connect to the test broker", e);
    }
  }

  /** Stops the server cleanly and starts it again on the same ports and data. */
  synchronized void restart() {
    stopServer();
    start();
  }

  synchronized void start() {
    List<String> cmd = new ArrayList<>(asUser);
    cmd.add(server.toString());
    ProcessBuilder pb = new ProcessBuilder(cmd);
    environment(pb.environment());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()));
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + server, e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Await.LIMIT_SECONDS);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "rabbitmq-server exited with " + process.exitValue() + "; see " + dir);
      }
      try {
        factory().newConnection("probe").close();
        return;
      } catch (IOException | java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("RabbitMQ did not accept connections; see " + dir, e);
        }
      }
      sleep(200);
    }
  }

  private synchronized void stopServer() {
    if (process == null) {
      return;
    }
    run(ctl.toString(), "-n", node, "stop");
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private void shutdown() {
    stopServer();
    // The server started an epmd daemon on our private port; it outlives the server.
    run("epmd", "-port", Integer.toString(epmdPort), "-kill");
  }

  private void run(String... command) {
    List<String> cmd = new ArrayList<>(asUser);
    cmd.addAll(List.of(command));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    environment(pb.environment());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("ctl.out").toFile()));
    try {
      Process p = pb.start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void environment(Map<String, String> env) {
    String d = dir.toString();
    env.put("HOME", d);
    env.put("RABBITMQ_BASE", d);
    env.put("RABBITMQ_MNESIA_BASE", d + "/mnesia");
    env.put("RABBITMQ_LOG_BASE", d + "/log");
    env.put("RABBITMQ_PID_FILE", d + "/rabbitmq.pid");
    env.put("RABBITMQ_NODENAME", node);
    env.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_NODE_PORT", Integer.toString(port));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", d + "/enabled_plugins");
    // Files that do not exist: the system's /etc/rabbitmq settings must not apply.
    env.put("RABBITMQ_CONFIG_FILE", d + "/rabbitmq");
    env.put("RABBITMQ_ADVANCED_CONFIG_FILE", d + "/advanced.config");
    env.put("RABBITMQ_CONF_ENV_FILE", d + "/rabbitmq-env.conf");
    env.put("ERL_EPMD_PORT", Integer.toString(epmdPort));
    env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}");
  }

  /** As root, run as nobody with the directory handed over; as anyone else, as is. */
  private static List<String> nonRootPrefix(Path dir) throws IOException {
    if (!"root".equals(System.getProperty("user.name"))) {
      return List.of();
    }
    try {
      Process chown =
          new ProcessBuilder("chown", "-R", "nobody:nogroup", dir.toString())
              .redirectErrorStream(true)
              .start();
      if (chown.waitFor() != 0) {
        throw new IllegalStateException(
            "could not hand "
                + dir
                + " to nobody: "
                + new String(chown.getInputStream().readAllBytes()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups");
  }

  static String testClassPath() {
    try {
      String deps = Files.readString(Paths.get("target", "test-classpath.txt")).trim();
      return Paths.get("target", "test-classes").toAbsolutePath()
          + java.io.File.pathSeparator
          + Paths.get("target", "classes").toAbsolutePath()
          + java.io.File.pathSeparator
          + deps;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "target/test-classpath.txt is missing: run the tests through Maven", e);
    }
  }

  static String javaBinary() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
