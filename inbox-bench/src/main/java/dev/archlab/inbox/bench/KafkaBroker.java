package dev.archlab.inbox.bench;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A single-node Kafka broker (KRaft: broker and controller in one process) in its own JVM, on
 * 127.0.0.1 and free ports, for the Kafka load run. Its class path is the file Maven's {@code
 * dependency:build-classpath} writes at build time ({@code
 * inbox-bench/target/kafka-broker-classpath.txt}): the {@code kafka_2.13} jars come from the local
 * Maven repository, never from a download at run time. {@link #close()} stops the process and
 * deletes its data.
 */
final class KafkaBroker implements AutoCloseable {

  /** Where {@code mvn package} (or {@code test}) writes the broker's class path, from the root. */
  static final Path DEFAULT_CLASSPATH_FILE =
      Path.of("inbox-bench/target/kafka-broker-classpath.txt");

  private final Process process;
  private final String bootstrap;
  private final Path dir;

  private KafkaBroker(Process process, String bootstrap, Path dir) {
    this.process = process;
    this.bootstrap = bootstrap;
    this.dir = dir;
  }

  /**
   * Formats a fresh log directory and starts the broker from the class path listed in {@code
   * classpathFile}; returns once it answers an admin request. {@code groupJoinDelayMs} is the
   * broker's {@code group.initial.rebalance.delay.ms}.
   *
   * @throws IOException if the class path file is missing (with how to make it), the storage format
   *     fails, or the broker exits or is not ready within two minutes (with its log)
   */
  static KafkaBroker start(Path classpathFile, int groupJoinDelayMs)
      throws IOException, InterruptedException {
    if (!Files.isReadable(classpathFile)) {
      throw new IOException(
          "Kafka broker class path file "
              + classpathFile.toAbsolutePath()
              + " not found: build inbox-bench first (./mvnw -B package -pl inbox-bench -am"
              + " -DskipTests), or pass --broker-classpath FILE");
    }
    String classpath = Files.readString(classpathFile, StandardCharsets.UTF_8).strip();
    if (!classpath.contains("kafka_2.13")) {
      throw new IOException(classpathFile + " does not list the kafka_2.13 jar: rebuild it");
    }
    Path dir = Files.createTempDirectory("inbox-bench-kafka");
    int[] ports = dev.archlab.inbox.testkit.FreePorts.distinct(2);
    int brokerPort = ports[0];
    int controllerPort = ports[1];
    Path config = dir.resolve("server.properties");
    try (Writer out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      serverProperties(dir, brokerPort, controllerPort, groupJoinDelayMs)
          .store(out, "inbox-bench Kafka broker");
    }
    Path formatLog = dir.resolve("format.log");
    int formatted =
        new ProcessBuilder(
                javaBinary(),
                "-cp",
                classpath,
                "kafka.tools.StorageTool",
                "format",
                "--standalone",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                config.toString())
            .redirectErrorStream(true)
            .redirectOutput(formatLog.toFile())
            .start()
            .waitFor();
    if (formatted != 0) {
      throw new IOException("Kafka storage format failed: " + Files.readString(formatLog));
    }
    Path log = dir.resolve("broker.log");
    Process process =
        new ProcessBuilder(
                javaBinary(), "-Xmx512m", "-cp", classpath, "kafka.Kafka", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    KafkaBroker broker = new KafkaBroker(process, "127.0.0.1:" + brokerPort, dir);
    try {
      broker.awaitReady(log);
    } catch (IOException | RuntimeException | InterruptedException e) {
      broker.close();
      throw e;
    }
    return broker;
  }

  private static Properties serverProperties(
      Path dir, int brokerPort, int controllerPort, int groupJoinDelayMs) {
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
    // The first member of a group waits this long for the others, so the consumer processes of
    // a run join one generation instead of rebalancing twice while the run drains.
    p.setProperty("group.initial.rebalance.delay.ms", Integer.toString(groupJoinDelayMs));
    p.setProperty("auto.create.topics.enable", "false");
    return p;
  }

  /** {@code host:port} for {@code bootstrap.servers}. */
  String bootstrap() {
    return bootstrap;
  }

  /** A new admin client on this broker; the caller closes it. */
  Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            60_000));
  }

  /** Creates each topic with {@code partitions} partitions and replication factor 1. */
  void createTopics(int partitions, String... names) throws Exception {
    List<NewTopic> topics = new ArrayList<>();
    for (String n : names) {
      topics.add(new NewTopic(n, partitions, (short) 1));
    }
    try (Admin admin = admin()) {
      admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
      awaitOnBroker(admin, partitions, names);
    }
  }

  /**
   * Waits until every partition of {@code names} answers a ListOffsets request from its leader. A
   * topic the controller has created may not exist on the broker yet; an idempotent producer whose
   * first sends met it there reset its sequence numbers while the broker kept those it had
   * appended, and its later batches failed as out of order until they expired (120 s).
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

  /** Polls an admin request until the broker answers (start-up wait, not a measurement). */
  private void awaitReady(Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IOException("Kafka broker exited: " + Files.readString(log));
      }
      try (Admin admin = admin()) {
        admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        Thread.sleep(200); // not listening yet
      }
    }
    throw new IOException("Kafka broker not ready after 120 s: " + Files.readString(log));
  }

  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary directory: nothing depends on its removal.
    }
  }

  /** The operating system's id of the process, to read its CPU time. */
  long pid() {
    return process.pid();
  }
}
