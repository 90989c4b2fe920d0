package dev.archlab.inbox.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka broker (KRaft, broker and controller in one process) in its own JVM, from the
 * kafka_2.13 jars Maven resolved (their paths are in target/test-classpath.txt), listening on
 * 127.0.0.1 on free ports. Started on first use, stopped when the test JVM exits.
 *
 * <p>Public for other modules' tests (this module's test jar): a module using it declares
 * kafka_2.13 as a test dependency and writes its own target/test-classpath.txt with
 * maven-dependency-plugin's build-classpath, as this module's pom does.
 */
public final class KafkaBroker {

  private static KafkaBroker instance;

  // Replaced by restart(); the config, data and ports stay.
  private volatile Process process;
  private final String bootstrap;
  private final Path dir;

  private KafkaBroker(Process process, String bootstrap, Path dir) {
    this.process = process;
    this.bootstrap = bootstrap;
    this.dir = dir;
  }

  /**
   * The broker of this test JVM, started on first use.
   *
   * @return the running broker
   */
  public static synchronized KafkaBroker get() {
    if (instance == null) {
      try {
        instance = start();
      } catch (IOException e) {
        throw new UncheckedIOException("could not start the Kafka broker", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "stop-kafka-broker"));
    }
    return instance;
  }

  /**
   * Where clients connect.
   *
   * @return {@code bootstrap.servers} for this broker
   */
  public String bootstrap() {
    return bootstrap;
  }

  /** The class path of the test JVM's dependencies plus this module's classes. */
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

  private static KafkaBroker start() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("inbox-kafka-broker");
    int[] ports = dev.archlab.inbox.testkit.FreePorts.distinct(2);
    int brokerPort = ports[0];
    int controllerPort = ports[1];
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", "1");
    p.setProperty("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
    p.setProperty(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("log.dirs", dir.resolve("data").toString());
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "3");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    p.setProperty("auto.create.topics.enable", "false");
    p.setProperty("num.partitions", "1");
    Path config = dir.resolve("server.properties");
    try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(out, "inbox-kafka test broker");
    }
    String cp = testClassPath();
    int formatted =
        new ProcessBuilder(
                javaBinary(),
                "-cp",
                cp,
                "kafka.tools.StorageTool",
                "format",
                "--standalone",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("format.log").toFile())
            .start()
            .waitFor();
    if (formatted != 0) {
      throw new IOException(
          "kafka storage format failed: " + Files.readString(dir.resolve("format.log")));
    }
    KafkaBroker broker = new KafkaBroker(launch(dir), "127.0.0.1:" + brokerPort, dir);
    broker.awaitReady(dir.resolve("broker.log"));
    return broker;
  }

  /** Starts the broker process on the configuration and data in {@code dir}. */
  private static Process launch(Path dir) throws IOException {
    Path log = dir.resolve("broker.log");
    return new ProcessBuilder(
            javaBinary(),
            "-Xmx512m",
            "-cp",
            testClassPath(),
            "kafka.Kafka",
            dir.resolve("server.properties").toString())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }

  /**
   * Stops the broker cleanly (SIGTERM, as an operator's restart does) and starts it again on the
   * same ports, configuration and data; returns once it answers admin requests again. Clients
   * reconnect by themselves.
   *
   * @throws IllegalStateException if it does not stop within 60 s or does not come back
   */
  public synchronized void restart() {
    try {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the Kafka broker did not stop within 60 s");
      }
      process = launch(dir);
      awaitReady(dir.resolve("broker.log"));
    } catch (IOException e) {
      throw new UncheckedIOException("could not restart the Kafka broker", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the broker answers an admin request (start-up, not a test assertion). */
  private void awaitReady(Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("Kafka broker exited: " + Files.readString(log));
      }
      try (Admin admin = admin()) {
        admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        Thread.sleep(200); // not ready yet: poll again
      }
    }
    stop();
    throw new IOException("Kafka broker not ready after 120 s: " + Files.readString(log));
  }

  /**
   * A new admin client; the caller closes it.
   *
   * @return an admin client of this broker
   */
  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            30_000));
  }

  /**
   * Creates topics with replication factor 1 and waits until they exist.
   *
   * @param partitions partitions of each topic
   * @param names the topic names
   */
  public void createTopics(int partitions, String... names) {
    List<NewTopic> topics = new ArrayList<>();
    for (String n : names) {
      topics.add(new NewTopic(n, partitions, (short) 1));
    }
    try (Admin admin = admin()) {
      admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
      awaitOnBroker(admin, partitions, names);
    } catch (Exception e) {
      throw new IllegalStateException("could not create topics " + List.of(names), e);
    }
  }

  /**
   * Waits until every partition of {@code names} answers a ListOffsets request from its leader. A
   * topic the controller has created may not exist on the broker yet; an idempotent producer whose
   * first sends met it there reset its sequence numbers while the broker kept those it had
   * appended, and its later batches failed as out of order until they expired (120 s): a scale-out
   * run once lost 330 records that way, silently, before a consumer ever saw them.
   */
  private static void awaitOnBroker(Admin admin, int partitions, String... names) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (String n : names) {
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(n, p), OffsetSpec.latest());
      }
    }
    admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS);
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    deleteQuietly(dir);
  }

  private static void deleteQuietly(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
    } catch (IOException e) {
      // Temp files only; nothing depends on their removal.
    }
  }
}
