package dev.archlab.inbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link MemoryStoreBenchmark} through JMH's API and writes {@code memory.csv} (one row per
 * implementation, thread count and duplicate share), the input of the memory target. JMH scores a
 * batch in microseconds; the CSV holds deliveries per microsecond over all threads, {@code threads
 * × batch size / score}, with the half-width of JMH's 99.9 % confidence interval carried over. The
 * JMH forks inherit this JVM's class path, so run it from the shaded jar.
 */
final class MemoryRun {

  static final List<String> HEADER =
      List.of("impl", "threads", "duplicate_percent", "ops_per_us", "error_ops_per_us");

  private MemoryRun() {}

  static void run(boolean quick, Path outDir) throws Exception {
    OptionsBuilder ob = new OptionsBuilder();
    ob.include(MemoryStoreBenchmark.class.getName()).shouldDoGC(true);
    if (quick) {
      ob.forks(1).warmupIterations(10).measurementIterations(20);
    }
    Options options = ob.build();
    List<List<Object>> rows = new ArrayList<>();
    for (RunResult r : new Runner(options).run()) {
      String method = r.getParams().getBenchmark();
      int threads = r.getParams().getThreads();
      double deliveries = (double) threads * r.getParams().getMeasurement().getBatchSize();
      double micros = r.getPrimaryResult().getScore();
      double error = r.getPrimaryResult().getScoreError();
      double opsPerMicro = deliveries / micros;
      // The interval [micros - error, micros + error] maps to a skewed one in deliveries/µs;
      // half its width is the ± reported.
      double errorOps =
          error >= micros || Double.isNaN(error)
              ? Double.NaN
              : (deliveries / (micros - error) - deliveries / (micros + error)) / 2;
      rows.add(
          List.of(
              r.getParams().getParam("impl"),
              threads,
              r.getParams().getParam("duplicatePercent"),
              opsPerMicro,
              errorOps));
      System.out.printf(
          Locale.ROOT,
          "%s %s %d threads %s%% dup: %.2f ops/us ± %.2f%n",
          method,
          r.getParams().getParam("impl"),
          threads,
          r.getParams().getParam("duplicatePercent"),
          opsPerMicro,
          errorOps);
    }
    Csv.write(outDir.resolve("memory.csv"), HEADER, rows);
  }
}
