package dev.archlab.inbox.cli;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code inbox simulate} with the same arguments on the embedded SQLite default, an H2 file and an
 * embedded PostgreSQL server, one after the other in one run, each as its own process on a fresh
 * database; prints the deliveries/s each reported, as a Markdown table. Test code (it starts
 * PostgreSQL through the tests' helper); run it with the test classpath, with no build running
 * meanwhile:
 *
 * <pre>
 * ./mvnw -B -q -pl inbox-cli -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test.classpath
 * java -cp inbox-cli/target/test-classes:inbox-cli/target/classes:$(cat inbox-cli/target/test.classpath) \
 *     dev.archlab.inbox.cli.SimulateBenchmark [rounds]
 * </pre>
 */
final class SimulateBenchmark {

  static final String[] ARGS = {
    "simulate",
    "--messages",
    "5000",
    "--duplicates",
    "2",
    "--workers",
    "4",
    "--crash-rate",
    "0.05",
    "--lease",
    "2s",
    "--seed",
    "1",
    "--no-progress"
  };

  private static final Pattern THROUGHPUT =
      Pattern.compile("throughput\\s+(\\d+) deliveries/s over ([0-9.]+) s");

  private SimulateBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    Path root = Files.createTempDirectory("inbox-simulate-bench");
    String pg = EmbeddedPostgres.bareUrl();
    System.out.println("| database | deliveries/s, round 1.." + rounds + " | median |");
    System.out.println("|---|---|---|");
    for (String db : List.of("sqlite", "h2", "postgresql")) {
      List<Long> rates = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        Path dir = Files.createDirectories(root.resolve(db + "-" + round));
        List<String> extra = new ArrayList<>();
        switch (db) {
          case "h2" -> {
            extra.add("--db");
            extra.add("jdbc:h2:file:" + dir.resolve("inbox") + ";AUTO_SERVER=TRUE");
          }
          case "postgresql" -> {
            extra.add("--db");
            extra.add(pg);
            extra.add("--user");
            extra.add("postgres");
            // A fresh table per round, like the fresh files of the other two.
            extra.add("--table");
            extra.add("inbox_bench_" + round);
          }
          default -> {} // the embedded default: ./.inbox/inbox.db in dir
        }
        rates.add(run(dir, extra));
      }
      List<Long> sorted = new ArrayList<>(rates);
      sorted.sort(null);
      System.out.printf(
          "| %s | %s | %d |%n",
          db,
          String.join(", ", rates.stream().map(String::valueOf).toList()),
          sorted.get(sorted.size() / 2));
    }
  }

  private static long run(Path dir, List<String> extra) throws Exception {
    List<String> command = new ArrayList<>(List.of(ARGS));
    command.addAll(extra);
    File log = dir.resolve("simulate.log").toFile();
    Process p =
        CliProcessTest.inbox(dir, command.toArray(String[]::new))
            .redirectErrorStream(true)
            .redirectOutput(log)
            .start();
    if (!p.waitFor(600, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("simulate did not finish in 600 s in " + dir);
    }
    String out = Files.readString(log.toPath(), StandardCharsets.UTF_8);
    Matcher m = THROUGHPUT.matcher(out);
    if (p.exitValue() != 0 || !out.contains("EXACTLY ONE EFFECT PER ID") || !m.find()) {
      throw new IllegalStateException("simulate failed in " + dir + ":\n" + out);
    }
    return Long.parseLong(m.group(1));
  }
}
