package dev.archlab.inbox.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The targets of issue #6, checked against one run's CSV rows (load, memory, scale). A target whose
 * inputs were not measured in this run is reported as SKIPPED, never as passed.
 */
final class Targets {

  /** One checked target. */
  record Check(String target, String detail, String verdict) {
    List<Object> row() {
      return List.of(target, detail, verdict);
    }
  }

  static final List<String> HEADER = List.of("target", "measured", "verdict");

  private Targets() {}

  static List<Check> check(
      List<Map<String, String>> load,
      List<Map<String, String>> memory,
      List<Map<String, String>> scale) {
    List<Check> out = new ArrayList<>();
    Set<Integer> connections = new LinkedHashSet<>();
    for (Map<String, String> r : load) {
      connections.add((int) Csv.number(r, "connections"));
    }
    for (int c : connections) {
      ratio(out, "single-message >= 0.9x floor @" + c, load, "inbox-single", "floor", c, 0.9);
      ratio(out, "one-commit >= 0.9x its floor @" + c, load, "inbox-1c", "floor-1c", c, 0.9);
      ratio(out, "one-commit >= 1.6x lease mode @" + c, load, "inbox-1c", "inbox-single", c, 1.6);
      for (String peer : List.of("camel-orphan-lock", "camel-jdbc", "spring-metadata")) {
        ratio(
            out, "single-message ahead of " + peer + " @" + c, load, "inbox-single", peer, c, 1.0);
        // Informational: the issue does not say which of our modes must lead, so both are shown.
        ratio(out, "one-commit ahead of " + peer + " @" + c, load, "inbox-1c", peer, c, 1.0);
      }
    }
    ratio(out, "batch >= 10x single @4", load, "inbox-batch", "inbox-single", 4, 10.0);
    for (int threads : new int[] {1, 2}) {
      for (String dup : List.of("0", "50")) {
        Double ours = memoryScore(memory, "inbox", threads, dup);
        Double chm = memoryScore(memory, "chm", threads, dup);
        String name = "memory store >= 0.5x ConcurrentHashMap, " + threads + "t, " + dup + "% dup";
        out.add(verdict(name, ours, chm, 0.5));
      }
    }
    Map<String, String> empty = null;
    Map<String, String> largest = null;
    for (Map<String, String> r : scale) {
      double size = Csv.number(r, "size");
      if (size == 0) {
        empty = r;
      } else if (largest == null || size > Csv.number(largest, "size")) {
        largest = r;
      }
    }
    if (empty == null || largest == null) {
      out.add(new Check("claim p50 at largest size <= 1.5x empty", "not measured", "SKIPPED"));
    } else {
      double ratio = Csv.number(largest, "claim_p50_us") / Csv.number(empty, "claim_p50_us");
      String name =
          "claim p50 at " + (long) Csv.number(largest, "size") + " rows <= 1.5x empty table";
      boolean pass = ratio <= 1.5;
      String verdict = pass ? "PASS" : "MISS";
      if (Csv.number(largest, "size") < 10_000_000) {
        // The issue asks for 10 M rows; a smaller run is a smoke signal, not the target.
        verdict += " (size below 10 M)";
      }
      out.add(new Check(name, String.format(Locale.ROOT, "%.2fx", ratio), verdict));
    }
    return out;
  }

  private static void ratio(
      List<Check> out,
      String name,
      List<Map<String, String>> load,
      String system,
      String base,
      int connections,
      double threshold) {
    out.add(
        verdict(
            name,
            throughput(load, system, connections),
            throughput(load, base, connections),
            threshold));
  }

  private static Check verdict(String name, Double value, Double base, double threshold) {
    if (value == null || base == null || base <= 0) {
      return new Check(name, "not measured", "SKIPPED");
    }
    double ratio = value / base;
    return new Check(
        name, String.format(Locale.ROOT, "%.2fx", ratio), ratio >= threshold ? "PASS" : "MISS");
  }

  static Double throughput(List<Map<String, String>> load, String system, int connections) {
    for (Map<String, String> r : load) {
      if (system.equals(r.get("system")) && Csv.number(r, "connections") == connections) {
        return Csv.number(r, "msgs_per_s");
      }
    }
    return null;
  }

  private static Double memoryScore(
      List<Map<String, String>> memory, String impl, int threads, String dup) {
    for (Map<String, String> r : memory) {
      if (impl.equals(r.get("impl"))
          && Csv.number(r, "threads") == threads
          && dup.equals(r.get("duplicate_percent"))) {
        return Csv.number(r, "ops_per_us");
      }
    }
    return null;
  }
}
