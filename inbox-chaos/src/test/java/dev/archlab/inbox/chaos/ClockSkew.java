package dev.archlab.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The clock-skew scenario, built so that its evidence does not depend on how the processes are
 * scheduled: a holder process (clock -5 min) claims a known set of ids and keeps every claim open
 * (its handlers block until the driver releases them); while they are held, three processes with
 * clocks -5 min, 0 and +5 min deliver exactly those ids. Every one of their deliveries must answer
 * IN_FLIGHT: the ids are held by construction, so an APPLIED answer or a takeover is a stolen live
 * lease. Then the holder is released and completes, the three deliver again and must see DUPLICATE
 * only, and the database must hold one effect per id, every id DONE at attempt 1.
 *
 * <p>Why the clocks matter: the holder's leases last {@link #LEASE} (4 min, kept alive by its
 * heartbeat). Judged by the consumers' {@code Clock}s, a lease stamped by the -5 min holder ends a
 * minute before the real time, so the 0 and +5 min processes would see every one of them expired
 * and take it over. The store judges leases by the database clock, so none may be.
 */
final class ClockSkew {

  /** Shorter than the 5 min skew, so that a lease judged by a consumer clock would look expired. */
  static final String LEASE = "PT4M";

  static final int[] CLOCK_MINUTES = {-5, 0, 5};

  /** Deliveries of each held id by each of the three processes, per phase. */
  static final int COPIES = 3;

  static final long SEED = 404;

  /**
   * Backstop for each process step: only turns a hang into a failure; a step takes seconds even on
   * a loaded 2-core machine.
   */
  static final long BACKSTOP_SECONDS = 300;

  private ClockSkew() {}

  /** Runs the scenario on {@code db} with {@code held} ids and records its figures row. */
  static void run(Database db, Path logs, int held) throws Exception {
    String fault = "clock skew";
    Figures.forget(db.name(), fault);
    long started = System.nanoTime();
    EndState.reset(db);
    Fleet.migrate(db, logs);
    EndState.createEffectTable(db);
    // Only the ids and the end-state checks come from here: poison 0, no crash.
    ChaosRun.Shape shape = new ChaosRun.Shape(held, 0, 1, 0.0, "4m", 1, SEED, 0);

    Process holder = start(db, logs, held, "holder", "hold", -5, List.of());
    Path holderLog = logs.resolve("holder.log");
    Fleet.Run holderRun = new Fleet.Run(-1, holder, holderLog);
    List<Fleet.Run> probes = new ArrayList<>();
    try {
      awaitLine(holderRun, "HOLDING " + held);
      // The driver's own view: every id claimed once and still held.
      EndState holding = EndState.read(db, ChaosRun.CONSUMER, shape.ids());
      assertThat(holding.processing())
          .as("ids PROCESSING once the holder holds them; %s", holding)
          .isEqualTo(held);

      List<Fleet.Run> whileHeld = deliverAll(db, logs, held, "held");
      probes.addAll(whileHeld);
      StringBuilder perProcess = new StringBuilder();
      for (int p = 0; p < CLOCK_MINUTES.length; p++) {
        Fleet.Run r = whileHeld.get(p);
        perProcess.append(
            String.format(
                "%n  clock %+d min: deliveries %d, in-flight %d, applied %d, takeovers %d,"
                    + " handler runs %d",
                CLOCK_MINUTES[p],
                r.summary("deliveries"),
                r.summary("in-flight"),
                r.summary("applied"),
                r.summary("takeovers"),
                r.summary("handler runs")));
      }
      System.out.println("[chaos] clock skew while held:" + perProcess);
      for (int p = 0; p < CLOCK_MINUTES.length; p++) {
        Fleet.Run r = whileHeld.get(p);
        String ctx = perProcess + "\n" + r.output();
        assertThat(r.summary("deliveries"))
            .as("deliveries of the %+d min process; %s", CLOCK_MINUTES[p], ctx)
            .isEqualTo((long) held * COPIES);
        assertThat(r.summary("in-flight"))
            .as(
                "IN_FLIGHT answers of the %+d min process: every delivery met a held live lease;"
                    + " %s",
                CLOCK_MINUTES[p], ctx)
            .isEqualTo(r.summary("deliveries"));
        assertThat(r.summary("takeovers"))
            .as(
                "takeovers by the %+d min process (each a stolen live lease); %s",
                CLOCK_MINUTES[p], ctx)
            .isZero();
        assertThat(r.summary("handler runs"))
            .as(
                "handler runs in the %+d min process while the ids were held; %s",
                CLOCK_MINUTES[p], ctx)
            .isZero();
      }
      assertThat(holder.isAlive())
          .as("the holder is still holding (it ends only when released); %s", holderRun.output())
          .isTrue();
      EndState stillHeld = EndState.read(db, ChaosRun.CONSUMER, shape.ids());
      assertThat(stillHeld.processing())
          .as("ids still PROCESSING after the three delivered; %s", stillHeld)
          .isEqualTo(held);
      assertThat(stillHeld.retried())
          .as("ids past attempt 1 while held (each a claim taken over); %s", stillHeld)
          .isZero();
      assertThat(stillHeld.effectRows())
          .as("effect rows while held (the holder has not applied yet); %s", stillHeld)
          .isZero();

      release(holder);
      assertThat(holder.waitFor(BACKSTOP_SECONDS, TimeUnit.SECONDS))
          .as("holder ended after its release; %s", holderRun.output())
          .isTrue();
      assertThat(holder.exitValue()).as("holder exit; %s", holderRun.output()).isZero();
      assertThat(holderRun.summary("applied"))
          .as("ids the holder applied after its release; %s", holderRun.output())
          .isEqualTo(held);
      assertThat(holderRun.summary("takeovers")).as("holder takeovers").isZero();

      List<Fleet.Run> after = deliverAll(db, logs, held, "after");
      probes.addAll(after);
      for (int p = 0; p < CLOCK_MINUTES.length; p++) {
        Fleet.Run r = after.get(p);
        assertThat(r.summary("duplicates"))
            .as(
                "DUPLICATE answers of the %+d min process after the release; %s",
                CLOCK_MINUTES[p], r.output())
            .isEqualTo((long) held * COPIES)
            .isEqualTo(r.summary("deliveries"));
      }
    } finally {
      if (holder.isAlive()) {
        holder.destroyForcibly();
      }
      for (Fleet.Run r : probes) {
        r.process.destroyForcibly();
      }
    }

    EndState end = EndState.read(db, ChaosRun.CONSUMER, shape.ids());
    long calls = holderRun.summary("deliveries");
    long inFlight = 0;
    for (Fleet.Run r : probes) {
      calls += r.summary("deliveries");
      inFlight += r.summary("in-flight");
    }
    Figures figures =
        new Figures(
            fault,
            db.name(),
            Scale.current().label(),
            1,
            1 + probes.size(),
            held,
            held + (long) probes.size() * held * COPIES,
            calls,
            inFlight,
            "holder (clock -5m) holds every id; processes with clock -5m; 0; +5m deliver each "
                + COPIES
                + " times while held; then again after the release",
            0,
            end.doubleEffects(),
            end.lost(),
            end.deadOther(),
            end.deadPoison(),
            holderRun.summary("takeovers")
                + probes.stream().mapToLong(r -> r.summary("takeovers")).sum(),
            holderRun.summary("store errors")
                + probes.stream().mapToLong(r -> r.summary("store errors")).sum(),
            -1,
            (System.nanoTime() - started) / 1e9);
    try {
      ChaosRun.assertEndState(shape, end);
      assertThat(end.retried())
          .as("ids past attempt 1 in the database: each one was claimed twice; %s", end)
          .isZero();
      assertThat(figures.takeovers()).as("takeovers of all processes; %s", figures).isZero();
    } catch (Throwable failure) {
      figures.write(Figures.FAILED);
      throw failure;
    }
    figures.write(Figures.PASSED);
  }

  /** The three skewed processes deliver every held id {@link #COPIES} times; waits for all. */
  private static List<Fleet.Run> deliverAll(Database db, Path logs, int held, String phase)
      throws Exception {
    List<Fleet.Run> runs = new ArrayList<>();
    for (int p = 0; p < CLOCK_MINUTES.length; p++) {
      String name = phase + "-clock" + CLOCK_MINUTES[p];
      Process proc =
          start(
              db,
              logs,
              held,
              name,
              "deliver",
              CLOCK_MINUTES[p],
              List.of("copies=" + COPIES, "workers=4"));
      runs.add(new Fleet.Run(p, proc, logs.resolve(name + ".log")));
    }
    for (Fleet.Run r : runs) {
      assertThat(r.process.waitFor(BACKSTOP_SECONDS, TimeUnit.SECONDS))
          .as("process %s ended (backstop only); %s", r.log.getFileName(), r.output())
          .isTrue();
      assertThat(r.process.exitValue())
          .as("exit of %s; %s", r.log.getFileName(), r.output())
          .isZero();
    }
    return runs;
  }

  private static Process start(
      Database db,
      Path logs,
      int held,
      String name,
      String mode,
      int clockMinutes,
      List<String> extra)
      throws IOException {
    List<String> cmd = Fleet.java(LeaseProcess.class.getName());
    cmd.add(mode);
    cmd.add("db=" + db.url());
    cmd.add("user=" + db.user());
    cmd.add("password=" + db.password());
    cmd.add("consumer=" + ChaosRun.CONSUMER);
    cmd.add("messages=" + held);
    cmd.add("seed=" + SEED);
    cmd.add("clock-minutes=" + clockMinutes);
    cmd.add("lease=" + LEASE);
    cmd.addAll(extra);
    ProcessBuilder pb = Fleet.builder(cmd, logs, logs.resolve(name + ".log"));
    // stdin stays a pipe (the default): the holder's release line comes through it.
    return pb.start();
  }

  /** Polls the process's log for {@code line}; fails if it exits first or the backstop passes. */
  private static void awaitLine(Fleet.Run run, String line) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BACKSTOP_SECONDS);
    while (!run.output().contains(line)) {
      assertThat(run.process.isAlive())
          .as("%s still running while waiting for '%s'; output:%n%s", run.log, line, run.output())
          .isTrue();
      assertThat(System.nanoTime() < deadline)
          .as("'%s' within the %d s backstop; output:%n%s", line, BACKSTOP_SECONDS, run.output())
          .isTrue();
      Thread.sleep(50);
    }
  }

  private static void release(Process holder) throws IOException {
    OutputStream in = holder.getOutputStream();
    in.write("release\n".getBytes(StandardCharsets.UTF_8));
    in.flush();
  }
}
