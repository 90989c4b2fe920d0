package dev.archlab.inbox.bench;

import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code rabbitmq-server} for one benchmark run: 127.0.0.1, free ports, a private
 * directory and epmd port, as {@code nobody} when the JVM is root. {@link #close()} stops the
 * server and its epmd. Fails with a message naming the package if the server is not installed.
 */
final class BenchRabbitServer implements AutoCloseable {

  private static final Path SERVER =
      Path.of(System.getProperty("rabbitmq.server", "/usr/lib/rabbitmq/bin/rabbitmq-server"));

  private final Path dir;
  private final String node = "bench" + UUID.randomUUID().toString().substring(0, 8) + "@localhost";
  private final int port;
  private final int distPort;
  private final int epmdPort;
  private final List<String> asUser;
  private final Process process;

  BenchRabbitServer() throws IOException, InterruptedException {
    if (!Files.isExecutable(SERVER)) {
      throw new IllegalStateException(
          SERVER + " not found: install rabbitmq-server (apt-get install -y rabbitmq-server)");
    }
    dir = Files.createTempDirectory("inbox-bench-rabbitmq-");
    Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
    int[] ports = dev.archlab.inbox.testkit.FreePorts.distinct(3);
    port = ports[0];
    distPort = ports[1];
    epmdPort = ports[2];
    if ("root".equals(System.getProperty("user.name"))) {
      if (new ProcessBuilder("chown", "-R", "nobody:nogroup", dir.toString()).start().waitFor()
          != 0) {
        throw new IllegalStateException("could not hand " + dir + " to nobody");
      }
      asUser = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups");
    } else {
      asUser = List.of();
    }
    process = command(SERVER.toString()).redirectOutput(dir.resolve("server.out").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("rabbitmq-server exited; see " + dir);
      }
      try {
        factory().newConnection("probe").close();
        return;
      } catch (IOException | java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("RabbitMQ did not start; see " + dir, e);
        }
      }
      Thread.sleep(200);
    }
  }

  ConnectionFactory factory() {
    ConnectionFactory f = new ConnectionFactory();
    f.setHost("127.0.0.1");
    f.setPort(port);
    return f;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    Path ctl = SERVER.resolveSibling("rabbitmqctl");
    command(ctl.toString(), "-n", node, "stop").start().waitFor(60, TimeUnit.SECONDS);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    // The server's epmd daemon outlives it on our private port.
    command("epmd", "-port", Integer.toString(epmdPort), "-kill")
        .start()
        .waitFor(30, TimeUnit.SECONDS);
  }

  private ProcessBuilder command(String... cmd) {
    List<String> all = new ArrayList<>(asUser);
    all.addAll(List.of(cmd));
    ProcessBuilder pb = new ProcessBuilder(all).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Map<String, String> env = pb.environment();
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
    env.put("RABBITMQ_CONFIG_FILE", d + "/rabbitmq");
    env.put("RABBITMQ_ADVANCED_CONFIG_FILE", d + "/advanced.config");
    env.put("RABBITMQ_CONF_ENV_FILE", d + "/rabbitmq-env.conf");
    env.put("ERL_EPMD_PORT", Integer.toString(epmdPort));
    env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}");
    return pb;
  }
}
