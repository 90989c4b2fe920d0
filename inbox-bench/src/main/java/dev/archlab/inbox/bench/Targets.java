package dev.archlab.inbox.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The targets of issue #6, checked against one run's CSV rows (load, load rounds, memory, scale). A
 * target whose inputs were not measured in this run is reported as SKIPPED, never as passed.
 *
 * <p>A load ratio is decided by the median of its per-round ratios: in each round the system and
 * its baseline ran minutes apart at most, so a round's ratio is a paired comparison, and the median
 * of the rounds is not moved by one window that hit a slow disk (fsync latency on this kind of
 * machine swings by tens of percent between windows). The pooled ratio, all rounds' messages over
 * all rounds' seconds, is printed beside it, and the per-round range too.
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
      List<Map<String, String>> rounds,
      List<Map<String, String>> memory,
      List<Map<String, String>> scale) {
    List<Check> out = new ArrayList<>();
    Set<Integer> connections = new LinkedHashSet<>();
    for (Map<String, String> r : load) {
      connections.add((int) Csv.number(r, "connections"));
    }
    for (int c : connections) {
      Load l = new Load(load, rounds, c);
      l.ratio(out, "single-message >= 0.9x floor @" + c, "inbox-single", "floor", 0.9);
      l.ratio(out, "one-commit >= 0.9x its floor @" + c, "inbox-1c", "floor-1c", 0.9);
      l.ratio(out, "one-commit >= 1.6x lease mode @" + c, "inbox-1c", "inbox-single", 1.6);
      for (String peer : List.of("camel-orphan-lock", "camel-jdbc", "spring-metadata")) {
        l.ratio(out, "single-message ahead of " + peer + " @" + c, "inbox-single", peer, 1.0);
        // Informational: the issue does not say which of our modes must lead, so both are shown.
        l.ratio(out, "one-commit ahead of " + peer + " @" + c, "inbox-1c", peer, 1.0);
      }
    }
    new Load(load, rounds, 4)
        .ratio(out, "batch >= 10x single @4", "inbox-batch", "inbox-single", 10.0);
    coalescingTargets(out, load, rounds);
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

  /** The load rows of one connection count, pooled and per round. */
  private record Load(
      List<Map<String, String>> load, List<Map<String, String>> rounds, int connections) {

    void ratio(List<Check> out, String name, String system, String base, double threshold) {
      Double pooledValue = throughput(load, system, connections);
      Double pooledBase = throughput(load, base, connections);
      List<Double> perRound = roundRatios(rounds, system, base, connections);
      if (perRound.isEmpty()) {
        out.add(verdict(name, pooledValue, pooledBase, threshold));
        return;
      }
      double median = median(perRound);
      String pooled =
          pooledValue == null || pooledBase == null || pooledBase <= 0
              ? "n/a"
              : String.format(Locale.ROOT, "%.2fx", pooledValue / pooledBase);
      String detail =
          String.format(
              Locale.ROOT,
              "%.2fx (median of %d rounds, %.2f–%.2f; pooled %s)",
              median,
              perRound.size(),
              perRound.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
              perRound.stream().mapToDouble(Double::doubleValue).max().orElseThrow(),
              pooled);
      // A NaN threshold marks a comparison shown for information, without a target.
      String verdict = Double.isNaN(threshold) ? "INFO" : median >= threshold ? "PASS" : "MISS";
      out.add(new Check(name, detail, verdict));
    }
  }

  /**
   * The Kafka targets of issues #15 and #30, from {@code kafka_rounds.csv}: each decided on the
   * median of the per-round ratios (a case and its baseline drained the same topic in the same
   * round). The comparisons without a target are shown as INFO; a target whose cases did not run is
   * SKIPPED.
   */
  static List<Check> kafka(List<Map<String, String>> rounds) {
    List<Check> out = new ArrayList<>();
    kafkaRatio(
        out,
        rounds,
        "kafka one-commit batches (batch handler) >= 0.7x bare batch loop",
        "inbox-one-commit-batch",
        1,
        "bare-batch",
        1,
        0.7);
    kafkaRatio(
        out,
        rounds,
        "kafka one-commit (default, grouped) >= 1.5x bare per-record loop",
        "inbox-one-commit",
        1,
        "bare-record",
        1,
        1.5);
    kafkaRatio(
        out,
        rounds,
        "kafka one-commit loop >= 0.9x its raw-SQL floor",
        "inbox-one-commit",
        1,
        "floor-one-commit",
        1,
        0.9);
    kafkaRatio(
        out,
        rounds,
        "kafka per-message >= 0.5x bare per-record loop",
        "inbox-per-message",
        1,
        "bare-record",
        1,
        0.5);
    kafkaRatio(
        out,
        rounds,
        "kafka per-message, each record claimed alone vs bare per-record loop (no target)",
        "inbox-per-message-single",
        1,
        "bare-record",
        1,
        Double.NaN);
    kafkaRatio(
        out,
        rounds,
        "kafka one-commit, a transaction per record vs bare per-record loop (no target)",
        "inbox-one-commit-single",
        1,
        "bare-record",
        1,
        Double.NaN);
    kafkaRatio(
        out,
        rounds,
        "kafka lease-mode batch vs bare batch loop (no target)",
        "inbox-batch",
        1,
        "bare-batch",
        1,
        Double.NaN);
    kafkaRatio(
        out,
        rounds,
        "kafka one-commit, 3 processes >= 1.8x one process",
        "inbox-one-commit",
        3,
        "inbox-one-commit",
        1,
        1.8);
    for (String system : List.of("bare-record", "inbox-batch", "bare-batch")) {
      kafkaRatio(
          out,
          rounds,
          "kafka " + system + ", 3 processes vs one (no target)",
          system,
          3,
          system,
          1,
          Double.NaN);
    }
    for (String[] pair :
        new String[][] {{"inbox-one-commit", "bare-record"}, {"inbox-batch", "bare-batch"}}) {
      kafkaRatio(
          out,
          rounds,
          "kafka " + pair[0] + " vs " + pair[1] + ", 3 processes each (no target)",
          pair[0],
          3,
          pair[1],
          3,
          Double.NaN);
    }
    return out;
  }

  /**
   * The targets of issue #19 for coalescing, where the run measured the coalesced systems: the
   * lease mode ≥ 2× its uncoalesced self at 8 connections, ≥ 0.95× at 1, ahead of every peer at 4
   * and 8, and its p99 at 8 no worse than 1.5× uncoalesced; the transactional mode with coalesced
   * claims alongside, for information.
   */
  private static void coalescingTargets(
      List<Check> out, List<Map<String, String>> load, List<Map<String, String>> rounds) {
    boolean measured = false;
    for (Map<String, String> r : load) {
      measured |= "inbox-lease-coalesced".equals(r.get("system"));
    }
    if (!measured) {
      return;
    }
    String coalesced = "inbox-lease-coalesced";
    new Load(load, rounds, 8)
        .ratio(out, "coalesced >= 2x uncoalesced @8", coalesced, "inbox-lease", 2.0);
    new Load(load, rounds, 1)
        .ratio(out, "coalesced >= 0.95x uncoalesced @1", coalesced, "inbox-lease", 0.95);
    for (int c : new int[] {4, 8}) {
      Load l = new Load(load, rounds, c);
      for (String peer : List.of("camel-orphan-lock", "camel-jdbc", "spring-metadata")) {
        l.ratio(out, "coalesced ahead of " + peer + " @" + c, coalesced, peer, 1.0);
        l.ratio(
            out,
            "transactional, coalesced claims, vs " + peer + " @" + c + " (no target)",
            "inbox-single-coalesced",
            peer,
            Double.NaN);
      }
      l.ratio(
          out,
          "transactional: coalesced claims vs uncoalesced @" + c + " (no target)",
          "inbox-single-coalesced",
          "inbox-single",
          Double.NaN);
    }
    Double p99 = null;
    Double baseP99 = null;
    for (Map<String, String> r : load) {
      if (Csv.number(r, "connections") == 8) {
        if (coalesced.equals(r.get("system"))) {
          p99 = Csv.number(r, "p99_us");
        } else if ("inbox-lease".equals(r.get("system"))) {
          baseP99 = Csv.number(r, "p99_us");
        }
      }
    }
    if (p99 == null || baseP99 == null) {
      out.add(new Check("coalesced p99 <= 1.5x uncoalesced @8", "not measured", "SKIPPED"));
    } else {
      double ratio = p99 / baseP99;
      out.add(
          new Check(
              "coalesced p99 <= 1.5x uncoalesced @8",
              String.format(Locale.ROOT, "%.2fx (%.0f µs vs %.0f µs)", ratio, p99, baseP99),
              ratio <= 1.5 ? "PASS" : "MISS"));
    }
  }

  /** A Kafka ratio; a NaN threshold marks a comparison without a target (INFO). */
  private static void kafkaRatio(
      List<Check> out,
      List<Map<String, String>> rounds,
      String name,
      String system,
      int processes,
      String base,
      int baseProcesses,
      double threshold) {
    List<Double> perRound = kafkaRoundRatios(rounds, system, processes, base, baseProcesses);
    boolean target = !Double.isNaN(threshold);
    if (perRound.isEmpty()) {
      if (target) {
        out.add(new Check(name, "not measured", "SKIPPED"));
      }
      return;
    }
    double median = median(perRound);
    String detail =
        String.format(
            Locale.ROOT,
            "%.2fx (median of %d rounds, %.2f–%.2f)",
            median,
            perRound.size(),
            perRound.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
            perRound.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
    out.add(new Check(name, detail, !target ? "INFO" : median >= threshold ? "PASS" : "MISS"));
  }

  /**
   * {@code system} with {@code processes} over {@code base} with {@code baseProcesses}, records per
   * second, one ratio per round both ran in.
   */
  static List<Double> kafkaRoundRatios(
      List<Map<String, String>> rounds,
      String system,
      int processes,
      String base,
      int baseProcesses) {
    Map<Integer, Double> ours = new java.util.TreeMap<>();
    Map<Integer, Double> theirs = new java.util.TreeMap<>();
    for (Map<String, String> r : rounds) {
      int round = (int) Csv.number(r, "round");
      double p = Csv.number(r, "processes");
      if (system.equals(r.get("system")) && p == processes) {
        ours.put(round, Csv.number(r, "records_per_s"));
      }
      if (base.equals(r.get("system")) && p == baseProcesses) {
        theirs.put(round, Csv.number(r, "records_per_s"));
      }
    }
    List<Double> ratios = new ArrayList<>();
    for (Map.Entry<Integer, Double> e : ours.entrySet()) {
      Double b = theirs.get(e.getKey());
      if (b != null && b > 0) {
        ratios.add(e.getValue() / b);
      }
    }
    return ratios;
  }

  /** {@code system}'s throughput over {@code base}'s, one ratio per round both ran in. */
  static List<Double> roundRatios(
      List<Map<String, String>> rounds, String system, String base, int connections) {
    Map<Integer, Double> ours = new java.util.TreeMap<>();
    Map<Integer, Double> theirs = new java.util.TreeMap<>();
    for (Map<String, String> r : rounds) {
      if (Csv.number(r, "connections") != connections) {
        continue;
      }
      int round = (int) Csv.number(r, "round");
      if (system.equals(r.get("system"))) {
        ours.put(round, Csv.number(r, "msgs_per_s"));
      } else if (base.equals(r.get("system"))) {
        theirs.put(round, Csv.number(r, "msgs_per_s"));
      }
    }
    List<Double> ratios = new ArrayList<>();
    for (Map.Entry<Integer, Double> e : ours.entrySet()) {
      Double b = theirs.get(e.getKey());
      if (b != null && b > 0) {
        ratios.add(e.getValue() / b);
      }
    }
    return ratios;
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    java.util.Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static Check verdict(String name, Double value, Double base, double threshold) {
    if (value == null || base == null || base <= 0) {
      return new Check(name, "not measured", "SKIPPED");
    }
    double ratio = value / base;
    String verdict = Double.isNaN(threshold) ? "INFO" : ratio >= threshold ? "PASS" : "MISS";
    return new Check(name, String.format(Locale.ROOT, "%.2fx", ratio), verdict);
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
