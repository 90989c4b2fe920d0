package dev.archlab.inbox.chaos;

import dev.archlab.inbox.cli.InboxCli;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * K consumer JVMs, each an {@code inbox simulate} process, sharing one database and one stream of
 * ids (same {@code --seed}) but each with its own delivery order ({@code --order-seed}, unless the
 * slot's own arguments fix one). A slot can be killed with SIGKILL and started again; the new
 * process re-delivers everything, which is what a broker does to a consumer that died without
 * acknowledging.
 */
final class Fleet implements AutoCloseable {

  /** One process of one slot, with its output in a file. */
  static final class Run {
    final int slot;
    final Process process;
    final Path log;

    Run(int slot, Process process, Path log) {
      this.slot = slot;
      this.process = process;
      this.log = log;
    }

    String output() {
      try {
        return Files.readString(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "(log unreadable: " + e + ")";
      }
    }

    /**
     * A number from the final summary ({@code deliveries}, {@code in-flight}, {@code takeovers},
     * {@code store errors}, ...), or -1 if the process printed none (killed, or still running).
     */
    long summary(String label) {
      Matcher m =
          Pattern.compile("(?m)^\\s*" + Pattern.quote(label) + "\\s+(\\d+)").matcher(output());
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
  }

  private final Path logDir;
  private final List<String> common;
  private final List<List<String>> perSlot;
  private final Run[] current;
  private final List<Run> all = new ArrayList<>();
  private int starts;

  /**
   * @param common the arguments every process gets (database, ids, load shape)
   * @param perSlot extra arguments per slot (e.g. a clock offset); its size is K
   */
  Fleet(Path logDir, List<String> common, List<List<String>> perSlot) {
    this.logDir = logDir;
    this.common = List.copyOf(common);
    this.perSlot = List.copyOf(perSlot);
    this.current = new Run[perSlot.size()];
  }

  int size() {
    return current.length;
  }

  synchronized void startAll() throws IOException {
    for (int i = 0; i < current.length; i++) {
      start(i);
    }
  }

  /**
   * Runs {@code inbox migrate} once and waits for it, as an operator deploys the schema before the
   * consumers. Starting K processes at once on an empty database instead makes them race on {@code
   * CREATE TABLE IF NOT EXISTS}, which PostgreSQL does not make safe under concurrency.
   */
  static void migrate(Database db, Path logDir) throws Exception {
    List<String> cmd = java();
    cmd.add("migrate");
    cmd.addAll(db.cliArgs());
    Path log = logDir.resolve("migrate.log");
    Process p = builder(cmd, logDir, log).start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(
            "inbox migrate failed: " + Files.readString(log, StandardCharsets.UTF_8));
      }
    } finally {
      p.destroyForcibly();
    }
  }

  private static List<String> java() {
    return java(InboxCli.class.getName());
  }

  /** The command line of a consumer JVM running {@code mainClass} from the test classpath. */
  static List<String> java(String mainClass) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Small heaps: up to five of these share two cores and the test JVM.
    cmd.add("-Xmx256m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    return cmd;
  }

  static ProcessBuilder builder(List<String> cmd, Path dir, Path log) {
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    // The environment must not pick another database than the one under test.
    pb.environment().remove("INBOX_DB_URL");
    pb.environment().remove("INBOX_DB_USER");
    pb.environment().remove("INBOX_DB_PASSWORD");
    return pb;
  }

  /**
   * Starts (or restarts) slot {@code i}; a restart gets a fresh delivery order, unless the slot's
   * arguments name an {@code --order-seed} of their own (picocli refuses the option twice).
   */
  synchronized Run start(int slot) throws IOException {
    List<String> cmd = java();
    cmd.add("simulate");
    cmd.addAll(common);
    cmd.addAll(perSlot.get(slot));
    if (!perSlot.get(slot).contains("--order-seed")) {
      cmd.add("--order-seed");
      cmd.add(String.valueOf(1_000 * (slot + 1) + starts));
    }
    Path log = logDir.resolve("slot" + slot + "-run" + starts + ".log");
    Run run = new Run(slot, builder(cmd, logDir, log).start(), log);
    starts++;
    current[slot] = run;
    all.add(run);
    return run;
  }

  synchronized int starts() {
    return starts;
  }

  synchronized List<Integer> aliveSlots() {
    List<Integer> alive = new ArrayList<>();
    for (int i = 0; i < current.length; i++) {
      if (current[i] != null && current[i].process.isAlive()) {
        alive.add(i);
      }
    }
    return alive;
  }

  /** Exit status of a process ended by SIGKILL (128 + 9). */
  static final int KILLED_BY_SIGKILL = 137;

  /**
   * What {@link #killAndRestartOne} did to its victim.
   *
   * @param slot the victim's slot
   * @param exitCode how the victim ended: {@link #KILLED_BY_SIGKILL} if the signal ended it, 0 (or
   *     another code) if it had ended by itself before it could be frozen
   * @param midRun the victim was frozen (SIGSTOP) alive and before its verdict, so the SIGKILL that
   *     followed ended it mid-run: known by construction, not by timing
   */
  record Kill(int slot, int exitCode, boolean midRun) {
    /** True when the SIGKILL really ended a consumer in the middle of its run. */
    boolean hitRunningProcess() {
      return midRun && exitCode == KILLED_BY_SIGKILL;
    }
  }

  /**
   * Freezes one live slot chosen by {@code random} with SIGSTOP, checks that it is still running
   * and has not reached its verdict, SIGKILLs it and restarts it; null if none was alive. A frozen
   * process cannot finish between the check and the kill, so the result says for certain whether
   * the kill ended it mid-run.
   */
  Kill killAndRestartOne(Random random) throws Exception {
    Run victim;
    synchronized (this) {
      List<Integer> alive = aliveSlots();
      if (alive.isEmpty()) {
        return null;
      }
      victim = current[alive.get(random.nextInt(alive.size()))];
    }
    signal(victim.process, "STOP");
    boolean midRun = victim.process.isAlive() && !victim.output().contains("verdict:");
    victim.process.destroyForcibly(); // SIGKILL on Linux (ends a stopped process too)
    if (!victim.process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("slot " + victim.slot + " survived SIGKILL");
    }
    start(victim.slot);
    return new Kill(victim.slot, victim.process.exitValue(), midRun);
  }

  /** Sends {@code kill -<sig>} to {@code p}; a process that has already ended is no error. */
  static void signal(Process p, String sig) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid()))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(30, TimeUnit.SECONDS)) {
      kill.destroyForcibly();
      throw new IllegalStateException("kill -" + sig + " " + p.pid() + " did not return");
    }
    if (kill.exitValue() != 0 && p.isAlive()) {
      throw new IllegalStateException(
          "kill -"
              + sig
              + " "
              + p.pid()
              + " failed: "
              + new String(kill.getInputStream().readAllBytes()));
    }
  }

  /** Waits for every slot's current process to end; false if the deadline came first. */
  boolean awaitAll(long deadlineNanos) throws InterruptedException {
    for (int i = 0; i < current.length; i++) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0 || !current[i].process.waitFor(left, TimeUnit.NANOSECONDS)) {
        return false;
      }
    }
    return true;
  }

  /** The last process of each slot: the ones that must have ended with exit 0. */
  synchronized List<Run> finalRuns() {
    return List.of(current);
  }

  /**
   * Lines starting with one of {@code prefixes} in the logs of every process started so far,
   * running or ended: a count that only grows, so a rise proves a process wrote such a line after a
   * read.
   */
  synchronized long logLines(List<String> prefixes) {
    long total = 0;
    for (Run r : all) {
      for (String line : r.output().lines().toList()) {
        if (prefixes.stream().anyMatch(line::startsWith)) {
          total++;
        }
      }
    }
    return total;
  }

  /** Sum of a summary figure over every process that got to print its summary. */
  synchronized long sum(String label) {
    long total = 0;
    for (Run r : all) {
      if (!r.process.isAlive() && r.process.exitValue() == 0) {
        total += Math.max(0, r.summary(label));
      }
    }
    return total;
  }

  @Override
  public synchronized void close() {
    for (Run r : all) {
      if (r.process.isAlive()) {
        r.process.destroyForcibly();
      }
    }
    for (Run r : all) {
      try {
        r.process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
