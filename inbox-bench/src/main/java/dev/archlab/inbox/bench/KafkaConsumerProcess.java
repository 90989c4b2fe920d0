package dev.archlab.inbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** One consumer process, driven over its standard input and output. */
final class KafkaConsumerProcess {
  private final Process process;
  private final BufferedReader out;
  private final OutputStream in;
  private final Path log;

  private KafkaConsumerProcess(Process process, Path log) {
    this.process = process;
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = process.getOutputStream();
    this.log = log;
  }

  static KafkaConsumerProcess start(
      KafkaVariant variant,
      KafkaBroker broker,
      String topic,
      String group,
      String jdbcUrl,
      int maxPollRecords,
      int index)
      throws IOException {
    Path log = Files.createTempFile("kbench-" + variant.label() + "-" + index + "-", ".log");
    Process p =
        new ProcessBuilder(
                KafkaBroker.javaBinary(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                KafkaBenchConsumer.class.getName(),
                variant.label(),
                broker.bootstrap(),
                topic,
                group,
                jdbcUrl,
                Integer.toString(maxPollRecords))
            .redirectError(log.toFile())
            .start();
    return new KafkaConsumerProcess(p, log);
  }

  void awaitReady() throws IOException {
    String line = out.readLine();
    if (!KafkaBenchConsumer.READY.equals(line)) {
      throw new IOException("consumer process did not start (said " + line + "): " + log());
    }
  }

  void send(String line) throws IOException {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  void requireAlive() throws IOException {
    if (!process.isAlive()) {
      throw new IOException(
          "consumer process exited with " + process.exitValue() + " during the run: " + log());
    }
  }

  void awaitExit() throws IOException, InterruptedException {
    in.close();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      throw new IOException("consumer process did not stop within 90 s: " + log());
    }
    if (process.exitValue() != 0) {
      throw new IOException("consumer process exited with " + process.exitValue() + ": " + log());
    }
  }

  String log() throws IOException {
    String text = Files.readString(log, StandardCharsets.UTF_8);
    return log + ":\n" + (text.length() > 4000 ? text.substring(text.length() - 4000) : text);
  }

  void kill() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException e) {
      // A temporary file: nothing depends on its removal.
    }
  }

  /** The operating system's id of the process, to read its CPU time. */
  long pid() {
    return process.pid();
  }
}
