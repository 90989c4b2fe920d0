package dev.archlab.inbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link MemoryStoreBenchmark} through JMH's API and writes {@code memory.csv} (one row per
 * implementation, thread count and duplicate share), the input of the memory target. The JMH forks
 * inherit this JVM's class path, so run it from the shaded jar.
 */
final class MemoryRun {

  static final List<String> HEADER =
      List.of("impl", "threads", "duplicate_percent", "ops_per_us", "error_ops_per_us");

  private MemoryRun() {}

  static void run(boolean quick, Path outDir) throws Exception {
    OptionsBuilder ob = new OptionsBuilder();
    ob.include(MemoryStoreBenchmark.class.getName());
    if (quick) {
      ob.forks(1)
          .warmupIterations(2)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(3)
          .measurementTime(TimeValue.seconds(1));
    }
    Options options = ob.build();
    List<List<Object>> rows = new ArrayList<>();
    for (RunResult r : new Runner(options).run()) {
      String method = r.getParams().getBenchmark();
      int threads = r.getParams().getThreads();
      rows.add(
          List.of(
              r.getParams().getParam("impl"),
              threads,
              r.getParams().getParam("duplicatePercent"),
              r.getPrimaryResult().getScore(),
              r.getPrimaryResult().getScoreError()));
      System.out.printf(
          Locale.ROOT,
          "%s %s %d threads: %.2f ops/us%n",
          method,
          r.getParams().getParam("impl"),
          threads,
          r.getPrimaryResult().getScore());
    }
    Csv.write(outDir.resolve("memory.csv"), HEADER, rows);
  }
}
